// The TypeScript smoke test of `make clients` through @hey-api/openapi-ts:
// drives a running learngate through the SDK and fetch client hey-api
// generates from docs/openapi.yaml into hey/. A custom field, a user with it, a
// batch save with a row error, the user list walked one user a page by its
// Link header, and a webhook whose test event arrives with a signature
// verified by the standardwebhooks library.
//
//   node dist/hey-smoke.js <server url> <organisation host> <api key>
import { Webhook } from "standardwebhooks";
import { checker, hostFetch, receiver, walk } from "./common.js";
import { createClient } from "./hey/client/index.js";
import { batchSaveUsers, createCustomField, createUser, createWebhook, listUsers, testWebhook } from "./hey/sdk.gen.js";
import type { BatchUserRow, PingEvent } from "./hey/types.gen.js";

// A batch row lists only the fixed fields, so that a misspelt one does not
// compile; a client adds the custom fields it has, X-<name>, itself.
type Row = BatchUserRow & { [field: `X-${string}`]: string };

// @ts-expect-error a misspelt field of a batch row does not compile (frist_name).
export const typo: Row = { user_name: "typo", frist_name: "Typo" };

const [url, host, key] = process.argv.slice(2);
if (!url || !host || !key) {
  throw new Error("usage: node dist/hey-smoke.js <server url> <organisation host> <api key>");
}
const check = checker("hey-api client");

// The key goes where the document's security schemes say: the
// Authorization header (not the api_key query parameter as well).
const client = createClient({
  baseUrl: url,
  fetch: hostFetch(host),
  auth: (scheme) => (scheme.in === "query" ? undefined : key),
});

const field = await createCustomField({ client, body: { name: "City", field_type: "string" } });
check("create custom field", field.response.status === 201, field.error);
const ann = await createUser({
  client,
  body: { user_name: "ann", first_name: "Ann", last_name: "Smoke", email: "ann@example.com", "X-City": "Auckland" },
});
check("create user", ann.data?.user_name === "ann" && ann.data["X-City"] === "Auckland", ann.error ?? ann.data);

const rows: Row[] = [
  { user_name: "bob", first_name: "Bob", last_name: "Smoke", email: "bob@example.com", "X-City": "Wellington" },
  { user_name: "cat", first_name: "Cat", last_name: "Smoke", email: "cat@example.com" },
  { user_name: "hal", first_name: "Hal", last_name: "Smoke", email: "hal@" },
];
const batch = await batchSaveUsers({ client, body: { people: rows } });
check(
  "batch save with a row error",
  batch.data?.created === 3 &&
    batch.data.errors === 1 &&
    batch.data.error_list[0]?.user_name === "hal" &&
    batch.data.error_list[0].error_reason === "Invalid email 'hal@'",
  batch.error ?? batch.data,
);

const walked = await walk(10, async (cursor) => {
  const page = await listUsers({ client, query: { per_page: "1", cursor } });
  return { link: page.response.headers.get("link"), names: page.data?.records.map((u) => u.user_name) ?? [] };
});
check("list users walked by Link, one a page", JSON.stringify(walked) === JSON.stringify(["cat", "bob", "ann"]), walked);

const rec = await receiver();
try {
  const hook = await createWebhook({ client, body: { url: rec.url, events: ["user.created"] } });
  check("create webhook", hook.response.status === 201 && hook.data !== undefined, hook.error);
  const ping = await testWebhook({ client, path: { id: hook.data!.id } });
  check("test webhook (no body)", ping.response.status === 202, ping.error);
  await rec.wait(1);
  const d = rec.received[0];
  check("test event arrived", d !== undefined, rec.received);
  const event = new Webhook(hook.data!.secret).verify(d!.body, d!.headers) as PingEvent;
  check("ping event, signature verified", event.type === "ping" && event.data.id === hook.data!.id, event);
} finally {
  rec.close();
}
console.log("hey-api client smoke: passed");
