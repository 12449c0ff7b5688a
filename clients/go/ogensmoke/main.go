// Command ogensmoke drives a running learngate through the Go client that
// ogen generates from docs/openapi.yaml (package ogenapi, made by
// scripts/clients.sh and not committed): a custom field, a user with it, a
// batch save with a row error, the user list walked one user a page by its
// Link header, and a webhook whose test event arrives signed and is decoded
// by ogen's webhook handler. It exits non-zero on the first step that does
// not answer as the document says.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"time"

	"github.com/go-faster/jx"
	"github.com/ogen-go/ogen/ogenerrors"

	"learngate/clients/go/internal/smokekit"
	"learngate/clients/go/ogenapi"
)

// name prefixes every line this program prints.
const name = "ogen client"

func main() {
	url := flag.String("url", "", "the server's address, e.g. http://127.0.0.1:8080")
	host := flag.String("host", "", "the organisation's host, e.g. acme.learngate.localhost")
	key := flag.String("key", "", "the organisation's API key")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, *url, *host, *key); err != nil {
		fmt.Fprintln(os.Stderr, name+" smoke:", err)
		os.Exit(1)
	}
	fmt.Println(name + " smoke: passed")
}

// apiKey is the client's security source: the organisation's key in the
// Authorization header, and no other scheme.
type apiKey string

// ApiKeyHeader gives the key.
func (k apiKey) ApiKeyHeader(context.Context, ogenapi.OperationName) (ogenapi.ApiKeyHeader, error) {
	return ogenapi.ApiKeyHeader{APIKey: string(k)}, nil
}

// ApiKeyQuery is skipped: the header carries the key.
func (apiKey) ApiKeyQuery(context.Context, ogenapi.OperationName) (ogenapi.ApiKeyQuery, error) {
	return ogenapi.ApiKeyQuery{}, ogenerrors.ErrSkipClientSecurity
}

// OpsBearer is skipped: the ops API is not a tenant's.
func (apiKey) OpsBearer(context.Context, ogenapi.OperationName) (ogenapi.OpsBearer, error) {
	return ogenapi.OpsBearer{}, ogenerrors.ErrSkipClientSecurity
}

// ScimBearer is skipped: SCIM is not used here.
func (apiKey) ScimBearer(context.Context, ogenapi.OperationName) (ogenapi.ScimBearer, error) {
	return ogenapi.ScimBearer{}, ogenerrors.ErrSkipClientSecurity
}

// run is the whole smoke test.
func run(ctx context.Context, url, host, key string) error {
	c, err := ogenapi.NewClient(url, apiKey(key), ogenapi.WithClient(smokekit.HostClient(host)))
	if err != nil {
		return err
	}
	if err := users(ctx, c); err != nil {
		return err
	}
	return webhook(ctx, c)
}

// unexpected describes an answer of a type the step did not want.
func unexpected(step string, res any) error {
	return fmt.Errorf("%s: unexpected answer %T %+v", step, res, res)
}

// row is a batch row: its type lists only the fixed fields, so a misspelt
// one does not compile (typocheck/).
func row(userName, first, email string) ogenapi.BatchSaveUsersReqPeopleItem {
	return ogenapi.NewBatchUserRowBatchSaveUsersReqPeopleItem(ogenapi.BatchUserRow{
		UserName: ogenapi.NewOptString(userName), FirstName: ogenapi.NewOptNilString(first),
		LastName: ogenapi.NewOptNilString("Smoke"), Email: ogenapi.NewOptNilString(email),
	})
}

// users makes the custom field City, creates ann with a City, saves bob
// and cat in a batch with hal, whose email is invalid, and walks the user
// list one user a page.
func users(ctx context.Context, c *ogenapi.Client) error {
	field, err := c.CreateCustomField(ctx, &ogenapi.CreateCustomFieldReq{Name: ogenapi.NewOptString("City"),
		FieldType: ogenapi.NewOptCreateCustomFieldReqFieldType(ogenapi.CreateCustomFieldReqFieldTypeString)}, ogenapi.CreateCustomFieldParams{})
	if err != nil {
		return err
	}
	if _, ok := field.(*ogenapi.CustomFieldHeaders); !ok {
		return unexpected("create custom field", field)
	}
	fmt.Println(name + ": create custom field City")
	ann := ogenapi.UserInput{UserName: ogenapi.NewOptString("ann"), FirstName: ogenapi.NewOptNilString("Ann"),
		LastName: ogenapi.NewOptNilString("Smoke"), Email: ogenapi.NewOptNilString("ann@example.com"),
		AdditionalProps: ogenapi.UserInputAdditional{"X-City": jx.Raw(`"Auckland"`)}}
	res, err := c.CreateUser(ctx, &ann, ogenapi.CreateUserParams{})
	if err != nil {
		return err
	}
	created, ok := res.(*ogenapi.UserHeaders)
	if !ok {
		return unexpected("create user", res)
	}
	if city := created.Response.Pattern0Props["X-City"]; created.Response.UserName != "ann" || city.Value != "Auckland" {
		return fmt.Errorf("create user: %+v", created.Response)
	}
	fmt.Println(name + ": create user: ann, X-City Auckland")

	batch := ogenapi.BatchSaveUsersReq{People: []ogenapi.BatchSaveUsersReqPeopleItem{
		row("bob", "Bob", "bob@example.com"), row("cat", "Cat", "cat@example.com"), row("hal", "Hal", "hal@"),
	}}
	bres, err := c.BatchSaveUsers(ctx, &batch, ogenapi.BatchSaveUsersParams{})
	if err != nil {
		return err
	}
	saved, ok := bres.(*ogenapi.BatchUserResultHeaders)
	if !ok {
		return unexpected("batch save", bres)
	}
	got := saved.Response
	if got.Created != 3 || got.Errors != 1 || len(got.ErrorList) != 1 || got.ErrorList[0].UserName.Value != "hal" ||
		got.ErrorList[0].ErrorReason != "Invalid email 'hal@'" {
		return fmt.Errorf("batch save: %+v, want bob and cat saved and hal's row error", got)
	}
	fmt.Printf("%s: batch save with a row error: %s\n", name, got.ErrorList[0].ErrorReason)

	walked, err := smokekit.Walk(10, func(cursor string) (string, []string, error) {
		params := ogenapi.ListUsersParams{PerPage: ogenapi.NewOptString("1")}
		if cursor != "" {
			params.Cursor = ogenapi.NewOptString(cursor)
		}
		res, err := c.ListUsers(ctx, params)
		if err != nil {
			return "", nil, err
		}
		page, ok := res.(*ogenapi.ListUsersOKHeaders)
		if !ok {
			return "", nil, unexpected("list users", res)
		}
		var names []string
		for _, u := range page.Response.Records {
			names = append(names, u.UserName)
		}
		return page.Link, names, nil
	})
	if err != nil {
		return err
	}
	if !slices.Equal(walked, []string{"cat", "bob", "ann"}) {
		return fmt.Errorf("list users walked by Link, one a page: %v, want [cat bob ann]", walked)
	}
	fmt.Println(name + ": list users walked by Link, one a page: [cat bob ann]")
	return nil
}

// pings is the webhook handler: ogen decodes and validates each ping
// event (body and webhook- headers) and hands it here.
type pings struct {
	ogenapi.UnimplementedHandler
	got chan *ogenapi.PingEventReq
}

// PingEvent keeps the decoded event.
func (p pings) PingEvent(_ context.Context, req *ogenapi.PingEventReq, params ogenapi.PingEventParams) (ogenapi.PingEventRes, error) {
	if req.ID != params.WebhookID {
		return nil, fmt.Errorf("event id %q, webhook-id %q", req.ID, params.WebhookID)
	}
	p.got <- req
	return &ogenapi.WebhookAccepted{StatusCode: http.StatusNoContent}, nil
}

// webhook registers an endpoint on a local receiver and sends it a test
// event, whose signature is checked before ogen's webhook handler decodes
// it.
func webhook(ctx context.Context, c *ogenapi.Client) error {
	rec, err := smokekit.NewReceiver()
	if err != nil {
		return err
	}
	defer rec.Close()
	res, err := c.CreateWebhook(ctx, &ogenapi.CreateWebhookReq{URL: ogenapi.NewNilString(rec.URL),
		Events: ogenapi.WebhookEvents{ogenapi.WebhookEventsItem("user.created")}}, ogenapi.CreateWebhookParams{})
	if err != nil {
		return err
	}
	hook, ok := res.(*ogenapi.WebhookWithSecretHeaders)
	if !ok {
		return unexpected("create webhook", res)
	}
	fmt.Printf("%s: create webhook %d\n", name, hook.Response.ID)
	tres, err := c.TestWebhook(ctx, ogenapi.TestWebhookParams{ID: hook.Response.ID})
	if err != nil {
		return err
	}
	if _, ok := tres.(*ogenapi.WebhookDeliveryHeaders); !ok {
		return unexpected("test webhook", tres)
	}
	d, err := rec.Next(ctx)
	if err != nil {
		return err
	}
	if err := smokekit.Verify(hook.Response.Secret, d.Header, d.Body); err != nil {
		return err
	}
	handler := pings{got: make(chan *ogenapi.PingEventReq, 1)}
	srv, err := ogenapi.NewWebhookServer(handler)
	if err != nil {
		return err
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/hook", bytes.NewReader(d.Body))
	req.Header = d.Header
	w := httptest.NewRecorder()
	if !srv.Handle("ping", w, req) || w.Code != http.StatusNoContent {
		return fmt.Errorf("ogen's webhook handler answered %d %s to %s", w.Code, w.Body, d.Body)
	}
	select {
	case ping := <-handler.got:
		if ping.Type != "ping" || ping.Data.ID != hook.Response.ID {
			return fmt.Errorf("ping event %+v", ping)
		}
	default:
		return errors.New("ogen's webhook handler did not get the ping")
	}
	fmt.Println(name + ": test event received, signature verified, decoded by ogen's webhook handler")
	return nil
}
