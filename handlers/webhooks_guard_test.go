package handlers

import (
	"fmt"
	"net/http"
	"testing"

	"learngate/webhook"
)

// Registration refuses every IANA special-purpose range that is not
// globally reachable (docs/decisions.md, "Webhooks"), with the body it gives for
// the ranges refused before, on create and on update; a globally reachable
// address is accepted.
func TestWebhookRegistrationRefusesSpecialPurposeRanges(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	acme := e.acme
	for _, c := range []struct{ host, want string }{
		{"192.88.99.1", "a 6to4 relay address (192.88.99.1)"},
		{"[64:ff9b:1::1]", "a NAT64 address (64:ff9b:1::1)"},
		{"[64:ff9b::a00:1]", "a private address (64:ff9b::a00:1)"},
		{"[64:ff9b::808:808]", "a NAT64 address (64:ff9b::808:808)"},
		{"[2001::1]", "a Teredo address (2001::1)"},
		{"[2001:20::1]", "an ORCHID address (2001:20::1)"},
		{"[2001:2::1]", "a benchmarking address (2001:2::1)"},
		{"[2002:c0a8:101::1]", "a private address (2002:c0a8:101::1)"},
		{"[2002:808:808::1]", "a 6to4 address (2002:808:808::1)"},
		{"[3fff::1]", "a documentation address (3fff::1)"},
		{"[5f00::1]", "a segment routing address (5f00::1)"},
		{"[100::1]", "a reserved address (100::1)"},
		{"192.0.0.170", "a reserved address (192.0.0.170)"},
		{"192.0.0.192", "a cloud metadata address (192.0.0.192)"},
		{"192.31.196.1", "an AS112 address (192.31.196.1)"},
		{"192.52.193.1", "an AMT address (192.52.193.1)"},
		{"198.18.0.1", "a benchmarking address (198.18.0.1)"},
		{"203.0.113.9", "a documentation address (203.0.113.9)"},
		{"240.0.0.1", "a reserved address (240.0.0.1)"},
		{"255.255.255.255", "a reserved address (255.255.255.255)"},
		{"224.0.0.251", "a multicast address (224.0.0.251)"},
		{"[ff02::1]", "a multicast address (ff02::1)"},
		{"[fec0::1]", "a site-local address (fec0::1)"},
		{"[::ffff:192.88.99.1]", "a 6to4 relay address (192.88.99.1)"},
	} {
		t.Run(c.host, func(t *testing.T) {
			want := fmt.Sprintf(`{"error":"url must not point to %s"}`, c.want)
			body := fmt.Sprintf(`{"url":"https://%s/h","events":["*"]}`, c.host)
			acme.call(t, http.MethodPost, "/papi/webhooks", body, http.StatusBadRequest, want)
		})
	}
	acme.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, catalogEmptyList)

	// Globally reachable addresses are accepted; an update to a refused one is not.
	acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://8.8.8.8/h","events":["*"]}`, http.StatusCreated, "")
	acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://[2606:4700::1111]/h","events":["*"]}`, http.StatusCreated, "")
	acme.call(t, http.MethodPut, "/papi/webhooks/1", `{"url":"https://[2001::1]/h"}`, http.StatusBadRequest,
		`{"error":"url must not point to a Teredo address (2001::1)"}`)
	acme.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusOK, hookJSON(1, "https://8.8.8.8/h", `["*"]`, ""))
	// The other tenant sees none of acme's endpoints.
	e.other.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, catalogEmptyList)
	e.other.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusNotFound, `{"error":"not found"}`)

	// With AllowPrivate they are accepted, the metadata services still not.
	e.h.server.Papi.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://192.88.99.1/h","events":["*"]}`, http.StatusCreated, "")
	acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://[64:ff9b:1::1]/h","events":["*"]}`, http.StatusCreated, "")
	acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://192.0.0.192/h","events":["*"]}`, http.StatusBadRequest,
		`{"error":"url must not point to a cloud metadata address (192.0.0.192)"}`)
}
