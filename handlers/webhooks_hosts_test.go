package handlers

import (
	"net/http"
	"testing"

	"learngate/webhook"
)

// TestWebhookRegistrationRefusesHostForms (issue 27, finding 7): URLs
// whose host is an IPv4 address in another form than a.b.c.d, or a cloud
// metadata service's name, are refused on create and on update with the
// route's 400 body, even with LEARNGATE_WEBHOOK_ALLOW_PRIVATE; nothing is
// stored, and the other tenant sees nothing.
func TestWebhookRegistrationRefusesHostForms(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.h.server.Papi.WebhookPolicy = webhook.Policy{AllowPrivate: true}
	for _, c := range []struct{ url, want string }{
		{"https://2130706433/h", `{"error":"url must not write an IP address in a form other than a.b.c.d (2130706433)"}`},
		{"https://0x7f000001/h", `{"error":"url must not write an IP address in a form other than a.b.c.d (0x7f000001)"}`},
		{"https://127.1/h", `{"error":"url must not write an IP address in a form other than a.b.c.d (127.1)"}`},
		{"https://0177.0.0.1/h", `{"error":"url must not write an IP address in a form other than a.b.c.d (0177.0.0.1)"}`},
		{"https://metadata.google.internal/computeMetadata/v1/", `{"error":"url must not point to a cloud metadata service (metadata.google.internal)"}`},
		{"http://instance-data/latest/meta-data/", `{"error":"url must not point to a cloud metadata service (instance-data)"}`},
	} {
		t.Run(c.url, func(t *testing.T) {
			e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"`+c.url+`","events":["*"]}`, http.StatusBadRequest, c.want)
		})
	}
	e.acme.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, catalogEmptyList)
	e.acme.call(t, http.MethodPost, "/papi/webhooks", `{"url":"https://hooks.example.com/h","events":["*"]}`, http.StatusCreated, "")
	e.acme.call(t, http.MethodPut, "/papi/webhooks/1", `{"url":"https://0x7f.1/h"}`, http.StatusBadRequest,
		`{"error":"url must not write an IP address in a form other than a.b.c.d (0x7f.1)"}`)
	e.acme.call(t, http.MethodGet, "/papi/webhooks/1", "", http.StatusOK, hookJSON(1, "https://hooks.example.com/h", `["*"]`, ""))
	e.other.call(t, http.MethodGet, "/papi/webhooks", "", http.StatusOK, catalogEmptyList)
	e.other.call(t, http.MethodPut, "/papi/webhooks/1", `{"url":"https://127.1/h"}`, http.StatusNotFound, `{"error":"not found"}`)
}
