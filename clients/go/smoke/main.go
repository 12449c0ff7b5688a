// Command smoke drives a running learngate through the Go client that
// oapi-codegen generates from docs/openapi.yaml (package lgapi, made by
// scripts/clients.sh and not committed): custom field, topic and pathway,
// a user, a batch save with a row error, a list with an x- filter, a list
// walked by its Link header, an enrolment by code, a pathway enrolment
// read back, and a webhook whose test event arrives signed. It exits non-zero on the first step that does not answer as the
// document says.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"learngate/clients/go/internal/smokekit"
	"learngate/clients/go/lgapi"
)

func main() {
	url := flag.String("url", "", "the server's address, e.g. http://127.0.0.1:8080")
	host := flag.String("host", "", "the organisation's host, e.g. acme.learngate.localhost")
	key := flag.String("key", "", "the organisation's API key")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, *url, *host, *key); err != nil {
		fmt.Fprintln(os.Stderr, "go client smoke:", err)
		os.Exit(1)
	}
	fmt.Println("go client smoke: passed")
}

// run is the whole smoke test.
func run(ctx context.Context, url, host, key string) error {
	// The organisation is chosen by the Host header; the server listens on 127.0.0.1.
	c, err := lgapi.NewClientWithResponses(url, lgapi.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Host = host
		r.Header.Set("Authorization", key)
		return nil
	}))
	if err != nil {
		return err
	}
	if err := catalog(ctx, c); err != nil {
		return err
	}
	if err := users(ctx, c); err != nil {
		return err
	}
	if err := enrol(ctx, c); err != nil {
		return err
	}
	return webhook(ctx, c)
}

// status fails unless a response has the status wanted.
func status(step string, got int, body []byte, want int) error {
	return smokekit.Step("go client", step, got, body, want)
}

// catalog makes the custom field City, topic SAFE-1 and pathway IND-1.
func catalog(ctx context.Context, c *lgapi.ClientWithResponses) error {
	name, fieldType := "City", lgapi.CreateCustomFieldJSONBodyFieldType("string")
	field, err := c.CreateCustomFieldWithResponse(ctx, nil, lgapi.CreateCustomFieldJSONRequestBody{Name: &name, FieldType: &fieldType})
	if err != nil {
		return err
	}
	if err := status("create custom field", field.StatusCode(), field.Body, 201); err != nil {
		return err
	}
	title, code := "Safety first", "SAFE-1"
	topic, err := c.CreateTopicWithResponse(ctx, nil, lgapi.CreateTopicJSONRequestBody{Title: &title, EnrolmentCode: &code})
	if err != nil {
		return err
	}
	if err := status("create topic", topic.StatusCode(), topic.Body, 201); err != nil {
		return err
	}
	var topicID lgapi.LooseInteger
	if err := topicID.FromLooseInteger0(int(topic.JSON201.Id)); err != nil {
		return err
	}
	var topics lgapi.CreatePathwayJSONBody_Topics
	if err := topics.FromCreatePathwayJSONBodyTopics0(lgapi.CreatePathwayJSONBodyTopics0{{TopicId: &topicID}}); err != nil {
		return err
	}
	title, code = "Induction", "IND-1"
	pathway, err := c.CreatePathwayWithResponse(ctx, nil, lgapi.CreatePathwayJSONRequestBody{Title: &title, EnrolmentCode: &code, Topics: &topics})
	if err != nil {
		return err
	}
	return status("create pathway", pathway.StatusCode(), pathway.Body, 201)
}

// person is a user input with a City.
func person(userName, first, city string) lgapi.UserInput {
	last, email := "Smoke", userName+"@example.com"
	return lgapi.UserInput{UserName: &userName, FirstName: &first, LastName: &last, Email: &email,
		AdditionalProperties: map[string]any{"X-City": city}}
}

// row is a batch row. Its type lists only the fixed fields: a misspelt
// one does not compile (typocheck/), and custom fields go through
// createUser or updateUser.
func row(userName, first, email string) (*lgapi.BatchSaveUsersJSONBody_People_Item, error) {
	last := "Smoke"
	var item lgapi.BatchSaveUsersJSONBody_People_Item
	err := item.FromBatchUserRow(lgapi.BatchUserRow{UserName: &userName, FirstName: &first, LastName: &last, Email: &email})
	return &item, err
}

// users creates ann, saves bob and cat in a batch with hal, whose email is
// invalid (a row error), gives cat a City, lists the users whose City
// contains "auck" and walks the whole list one user a page by its Link
// header.
func users(ctx context.Context, c *lgapi.ClientWithResponses) error {
	created, err := c.CreateUserWithResponse(ctx, nil, person("ann", "Ann", "Auckland"))
	if err != nil {
		return err
	}
	if err := status("create user", created.StatusCode(), created.Body, 200); err != nil {
		return err
	}
	if created.JSON200.UserName != "ann" || !strings.Contains(string(created.Body), `"X-City":"Auckland"`) {
		return fmt.Errorf("create user: %s", created.Body)
	}
	var people []*lgapi.BatchSaveUsersJSONBody_People_Item
	for _, p := range [][3]string{{"bob", "Bob", "bob@example.com"}, {"cat", "Cat", "cat@example.com"}, {"hal", "Hal", "hal@"}} {
		item, err := row(p[0], p[1], p[2])
		if err != nil {
			return err
		}
		people = append(people, item)
	}
	// Sent twice with one Idempotency-Key, as a client retrying after a
	// timeout would: the second answer is the first, replayed.
	key := lgapi.IdempotencyKey("smoke-batch-1")
	body := lgapi.BatchSaveUsersJSONRequestBody{People: people}
	batch, err := c.BatchSaveUsersWithResponse(ctx, &lgapi.BatchSaveUsersParams{IdempotencyKey: &key}, body)
	if err != nil {
		return err
	}
	if err := status("batch save with a row error", batch.StatusCode(), batch.Body, 200); err != nil {
		return err
	}
	retried, err := c.BatchSaveUsersWithResponse(ctx, &lgapi.BatchSaveUsersParams{IdempotencyKey: &key}, body)
	if err != nil {
		return err
	}
	if retried.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" || string(retried.Body) != string(batch.Body) {
		return fmt.Errorf("batch save retried with its Idempotency-Key: %d %s, want the first answer replayed", retried.StatusCode(), retried.Body)
	}
	got := batch.JSON200
	if got.Created != 3 || got.Errors != 1 || len(got.ErrorList) != 1 || got.ErrorList[0].UserName == nil ||
		*got.ErrorList[0].UserName != "hal" || got.ErrorList[0].ErrorReason != "Invalid email 'hal@'" {
		return fmt.Errorf("batch save: %s, want bob and cat saved and hal's row error", batch.Body)
	}
	city := person("cat", "Cat", "Auckland North")
	updated, err := c.UpdateUserWithResponse(ctx, "cat", nil, lgapi.UserInput{AdditionalProperties: city.AdditionalProperties})
	if err != nil {
		return err
	}
	if err := status("update user cat's City", updated.StatusCode(), updated.Body, 200); err != nil {
		return err
	}
	filters := map[string]string{"x-City": "auck"}
	list, err := c.ListUsersWithResponse(ctx, &lgapi.ListUsersParams{CustomFieldFilters: &filters})
	if err != nil {
		return err
	}
	if err := status("list users with x-City=auck", list.StatusCode(), list.Body, 200); err != nil {
		return err
	}
	var names []string
	for _, u := range list.JSON200.Records {
		names = append(names, u.UserName)
	}
	if !slices.Equal(names, []string{"cat", "ann"}) || list.JSON200.TotalRecords != 2 {
		return fmt.Errorf("list users with x-City=auck: %v, want [cat ann]: %s", names, list.Body)
	}
	one := "1"
	walked, err := smokekit.Walk(10, func(cursor string) (string, []string, error) {
		params := &lgapi.ListUsersParams{PerPage: &one}
		if cursor != "" {
			params.Cursor = &cursor
		}
		page, err := c.ListUsersWithResponse(ctx, params)
		if err != nil {
			return "", nil, err
		}
		if page.JSON200 == nil {
			return "", nil, fmt.Errorf("list users page: %d %s", page.StatusCode(), page.Body)
		}
		var names []string
		for _, u := range page.JSON200.Records {
			names = append(names, u.UserName)
		}
		return page.HTTPResponse.Header.Get("Link"), names, nil
	})
	if err != nil {
		return err
	}
	if !slices.Equal(walked, []string{"cat", "bob", "ann"}) {
		return fmt.Errorf("list users walked by Link, one a page: %v, want [cat bob ann]", walked)
	}
	fmt.Println("go client: list users walked by Link, one a page: [cat bob ann]")
	return nil
}

// enrol enrols ann in IND-1 by its code and reads the pathway enrolment back.
func enrol(ctx context.Context, c *lgapi.ClientWithResponses) error {
	userName, code := "ann", "IND-1"
	res, err := c.CreateTopicAssignmentsWithResponse(ctx, nil, lgapi.CreateTopicAssignmentsJSONRequestBody{UserName: &userName, EnrolmentCode1: &code})
	if err != nil {
		return err
	}
	if err := status("enrol by code", res.StatusCode(), res.Body, 200); err != nil {
		return err
	}
	if len(res.JSON200.Assignments) != 1 {
		return fmt.Errorf("enrol by code: %s", res.Body)
	}
	enrolment, err := res.JSON200.Assignments[0].AsPathwayEnrolment()
	if err != nil {
		return err
	}
	show, err := c.ShowPathwayAssignmentWithResponse(ctx, enrolment.Id)
	if err != nil {
		return err
	}
	if err := status("show pathway enrolment", show.StatusCode(), show.Body, 200); err != nil {
		return err
	}
	if show.JSON200.User.UserName != "ann" || show.JSON200.Pathway.Title != "Induction" || show.JSON200.Status != "Unexplored" {
		return fmt.Errorf("show pathway enrolment: %s", show.Body)
	}
	return nil
}

// webhook registers an endpoint on a local receiver, sends it a test event
// (a POST without a body) and checks the event's Standard Webhooks
// signature, then rotates the secret (another POST without a body).
func webhook(ctx context.Context, c *lgapi.ClientWithResponses) error {
	rec, err := smokekit.NewReceiver()
	if err != nil {
		return err
	}
	defer rec.Close()
	events, target := lgapi.WebhookEvents{"user.created"}, rec.URL
	hook, err := c.CreateWebhookWithResponse(ctx, nil, lgapi.CreateWebhookJSONRequestBody{Url: &target, Events: &events})
	if err != nil {
		return err
	}
	if err := status("create webhook", hook.StatusCode(), hook.Body, 201); err != nil {
		return err
	}
	test, err := c.TestWebhookWithResponse(ctx, hook.JSON201.Id, nil)
	if err != nil {
		return err
	}
	if err := status("test webhook (no body, no Content-Type)", test.StatusCode(), test.Body, 202); err != nil {
		return err
	}
	d, err := rec.Next(ctx)
	if err != nil {
		return err
	}
	if err := smokekit.Verify(hook.JSON201.Secret, d.Header, d.Body); err != nil {
		return err
	}
	var ping lgapi.PingEvent
	if err := json.Unmarshal(d.Body, &ping); err != nil || ping.Type != "ping" || ping.Id != d.Header.Get("webhook-id") {
		return fmt.Errorf("test event %s: %v", d.Body, err)
	}
	fmt.Println("go client: test event received, signature verified")
	rotated, err := c.RotateWebhookSecretWithResponse(ctx, hook.JSON201.Id, nil)
	if err != nil {
		return err
	}
	if err := status("rotate secret (no body, no Content-Type)", rotated.StatusCode(), rotated.Body, 200); err != nil {
		return err
	}
	if rotated.JSON200.Secret == hook.JSON201.Secret {
		return fmt.Errorf("rotate secret kept the secret")
	}
	return nil
}
