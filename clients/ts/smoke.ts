// The TypeScript smoke test of `make clients` through openapi-typescript:
// drives a running learngate through openapi-fetch typed by the schema.d.ts
// that openapi-typescript generates from docs/openapi.yaml. Custom field,
// topic and pathway, a user, a batch save with a row error, a list with an
// x- filter, the user list walked by its Link header, an enrolment by code,
// a pathway enrolment read back, and a webhook whose deliveries (a
// user.created event and a test ping) are verified with the standardwebhooks
// library.
//
//   node dist/smoke.js <server url> <organisation host> <api key>
import createClient from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import { checker, hostFetch, receiver, walk } from "./common.js";
import type { components, paths } from "./schema.js";

type UserEvent = components["schemas"]["UserEvent"];
type PingEvent = components["schemas"]["PingEvent"];
// A batch row lists only the fixed fields, so that a misspelt one does not
// compile; a client adds the custom fields it has, X-<name>, itself.
type Row = components["schemas"]["BatchUserRow"] & { [field: `X-${string}`]: string };

// @ts-expect-error a misspelt field of a batch row does not compile (frist_name).
export const typo: Row = { user_name: "typo", frist_name: "Typo" };

const [url, host, key] = process.argv.slice(2);
if (!url || !host || !key) {
  throw new Error("usage: node dist/smoke.js <server url> <organisation host> <api key>");
}

const client = createClient<paths>({
  baseUrl: url,
  fetch: hostFetch(host),
  headers: { Authorization: key },
  // custom_field_filters is a form-exploded object: its properties are the query parameters.
  querySerializer: { object: { style: "form", explode: true } },
});

const check = checker("ts client");

// Catalog: the custom field City, topic SAFE-1 and pathway IND-1.
const field = await client.POST("/papi/custom_fields", { body: { name: "City", field_type: "string" } });
check("create custom field", field.response.status === 201, field.error);
const topic = await client.POST("/papi/topics", { body: { title: "Safety first", enrolment_code: "SAFE-1" } });
check("create topic", topic.response.status === 201 && topic.data !== undefined, topic.error);
const pathway = await client.POST("/papi/pathways", {
  body: { title: "Induction", enrolment_code: "IND-1", topics: [{ topic_id: topic.data!.id }] },
});
check("create pathway", pathway.response.status === 201, pathway.error);

// Users: one created, three in a batch (hal's email is invalid), a list filtered on City, the list walked.
const ann = await client.POST("/papi/users", {
  body: { user_name: "ann", first_name: "Ann", last_name: "Smoke", email: "ann@example.com", "X-City": "Auckland" },
});
check("create user", ann.data?.user_name === "ann" && ann.data["X-City"] === "Auckland", ann.error ?? ann.data);
const rows: Row[] = [
  { user_name: "bob", first_name: "Bob", last_name: "Smoke", email: "bob@example.com", "X-City": "Wellington" },
  { user_name: "cat", first_name: "Cat", last_name: "Smoke", email: "cat@example.com", "X-City": "Auckland North" },
  { user_name: "hal", first_name: "Hal", last_name: "Smoke", email: "hal@" },
];
const batch = await client.POST("/papi/users/batch_save", { body: { people: rows } });
check(
  "batch save with a row error",
  batch.data?.created === 3 &&
    batch.data.errors === 1 &&
    batch.data.error_list[0]?.user_name === "hal" &&
    batch.data.error_list[0].error_reason === "Invalid email 'hal@'",
  batch.error ?? batch.data,
);
const list = await client.GET("/papi/users", { params: { query: { custom_field_filters: { "x-City": "auck" } } } });
const names = list.data?.records.map((u) => u.user_name);
check("list users with x-City=auck", JSON.stringify(names) === JSON.stringify(["cat", "ann"]), list.error ?? list.data);
const walked = await walk(10, async (cursor) => {
  const page = await client.GET("/papi/users", { params: { query: { per_page: "1", cursor } } });
  return { link: page.response.headers.get("link"), names: page.data?.records.map((u) => u.user_name) ?? [] };
});
check("list users walked by Link, one a page", JSON.stringify(walked) === JSON.stringify(["cat", "bob", "ann"]), walked);

// An enrolment by code, and the pathway enrolment read back.
const enrolled = await client.POST("/papi/topic_assignments", { body: { user_name: "ann", enrolment_code_1: "IND-1" } });
const enrolment = enrolled.data?.assignments[0];
check("enrol by code", enrolled.response.status === 200 && enrolment !== undefined, enrolled.error);
const shown = await client.GET("/papi/pathway_assignments/{id}", { params: { path: { id: enrolment!.id } } });
check(
  "show pathway enrolment",
  shown.data?.user.user_name === "ann" && shown.data.pathway.title === "Induction",
  shown.error ?? shown.data,
);

// A webhook on a local receiver: a user.created event and a test ping, each verified.
const rec = await receiver();
try {
  const hook = await client.POST("/papi/webhooks", { body: { url: rec.url, events: ["user.created"] } });
  check("create webhook", hook.response.status === 201 && hook.data !== undefined, hook.error);
  const dan = await client.POST("/papi/users", {
    body: { user_name: "dan", first_name: "Dan", last_name: "Smoke", email: "dan@example.com" },
  });
  check("create user dan", dan.response.status === 200, dan.error);
  const ping = await client.POST("/papi/webhooks/{id}/test", { params: { path: { id: hook.data!.id } } });
  check("test webhook (no body)", ping.response.status === 202, ping.error);

  await rec.wait(2);
  check("two deliveries arrived", rec.received.length === 2, rec.received);
  const wh = new Webhook(hook.data!.secret);
  const events = rec.received.map((d) => wh.verify(d.body, d.headers) as UserEvent | PingEvent);
  console.log("ts client: signatures verified with standardwebhooks");
  const created = events.find((e): e is UserEvent => e.type === "user.created");
  check("user.created event", created?.data.user_name === "dan", events);
  check("ping event", events.some((e) => e.type === "ping" && e.data.id === hook.data!.id), events);
} finally {
  rec.close();
}
console.log("ts client smoke: passed");
