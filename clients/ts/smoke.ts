// The TypeScript smoke test of `make clients`: drives a running learngate
// through openapi-fetch typed by the schema.d.ts that openapi-typescript
// generates from docs/openapi.yaml. Custom field, topic and pathway, a user,
// a batch save, a list with an x- filter, an enrolment by code, a pathway
// enrolment read back, and a webhook whose deliveries (a user.created event
// and a test ping) are verified with the standardwebhooks library.
//
//   node dist/smoke.js <server url> <organisation host> <api key>
import http from "node:http";
import type { AddressInfo } from "node:net";
import createClient from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, paths } from "./schema.js";

type UserEvent = components["schemas"]["UserEvent"];
type PingEvent = components["schemas"]["PingEvent"];

const [url, host, key] = process.argv.slice(2);
if (!url || !host || !key) {
  throw new Error("usage: node dist/smoke.js <server url> <organisation host> <api key>");
}

// hostFetch sends a request to the server at url with the organisation's
// Host header, which the fetch of Node.js does not let a caller set: the
// organisation is chosen by Host, the server listens on 127.0.0.1.
function hostFetch(orgHost: string): (req: Request) => Promise<Response> {
  return async (req) => {
    const target = new URL(req.url);
    const body = Buffer.from(await req.arrayBuffer());
    const headers: Record<string, string> = { host: orgHost, "content-length": String(body.length) };
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
    return new Promise((resolve, reject) => {
      const out = http.request(
        { hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
            }
            const status = res.statusCode ?? 0;
            resolve(new Response(status === 204 ? null : Buffer.concat(chunks), { status, headers: h }));
          });
        },
      );
      out.on("error", reject);
      out.end(body);
    });
  };
}

const client = createClient<paths>({
  baseUrl: url,
  fetch: hostFetch(host),
  headers: { Authorization: key },
  // custom_field_filters is a form-exploded object: its properties are the query parameters.
  querySerializer: { object: { style: "form", explode: true } },
});

// check fails the smoke test unless ok, and logs the step otherwise.
function check(step: string, ok: boolean, detail: unknown): void {
  if (!ok) {
    throw new Error(`${step}: ${JSON.stringify(detail)}`);
  }
  console.log(`ts client: ${step}: ok`);
}

// Catalog: the custom field City, topic SAFE-1 and pathway IND-1.
const field = await client.POST("/papi/custom_fields", { body: { name: "City", field_type: "string" } });
check("create custom field", field.response.status === 201, field.error);
const topic = await client.POST("/papi/topics", { body: { title: "Safety first", enrolment_code: "SAFE-1" } });
check("create topic", topic.response.status === 201 && topic.data !== undefined, topic.error);
const pathway = await client.POST("/papi/pathways", {
  body: { title: "Induction", enrolment_code: "IND-1", topics: [{ topic_id: topic.data!.id }] },
});
check("create pathway", pathway.response.status === 201, pathway.error);

// Users: one created, two saved in a batch, a list filtered on City.
const ann = await client.POST("/papi/users", {
  body: { user_name: "ann", first_name: "Ann", last_name: "Smoke", email: "ann@example.com", "X-City": "Auckland" },
});
check("create user", ann.data?.user_name === "ann" && ann.data["X-City"] === "Auckland", ann.error ?? ann.data);
const batch = await client.POST("/papi/users/batch_save", {
  body: {
    people: [
      { user_name: "bob", first_name: "Bob", last_name: "Smoke", email: "bob@example.com", "X-City": "Wellington" },
      { user_name: "cat", first_name: "Cat", last_name: "Smoke", email: "cat@example.com", "X-City": "Auckland North" },
    ],
  },
});
check("batch save", batch.data?.created === 2 && batch.data.errors === 0, batch.error ?? batch.data);
const list = await client.GET("/papi/users", { params: { query: { custom_field_filters: { "x-City": "auck" } } } });
const names = list.data?.records.map((u) => u.user_name);
check("list users with x-City=auck", JSON.stringify(names) === JSON.stringify(["cat", "ann"]), list.error ?? list.data);

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
const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const headers: Record<string, string> = {};
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      headers[name] = String(req.headers[name] ?? "");
    }
    received.push({ headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
try {
  const port = (receiver.address() as AddressInfo).port;
  const hook = await client.POST("/papi/webhooks", {
    body: { url: `http://127.0.0.1:${port}/hook`, events: ["user.created"] },
  });
  check("create webhook", hook.response.status === 201 && hook.data !== undefined, hook.error);
  const dan = await client.POST("/papi/users", {
    body: { user_name: "dan", first_name: "Dan", last_name: "Smoke", email: "dan@example.com" },
  });
  check("create user dan", dan.response.status === 200, dan.error);
  const ping = await client.POST("/papi/webhooks/{id}/test", { params: { path: { id: hook.data!.id } } });
  check("test webhook (no body)", ping.response.status === 202, ping.error);

  const deadline = Date.now() + 30_000;
  while (received.length < 2 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  check("two deliveries arrived", received.length === 2, received);
  const wh = new Webhook(hook.data!.secret);
  const events = received.map((d) => wh.verify(d.body, d.headers) as UserEvent | PingEvent);
  console.log("ts client: signatures verified with standardwebhooks");
  const created = events.find((e): e is UserEvent => e.type === "user.created");
  check("user.created event", created?.data.user_name === "dan", events);
  check("ping event", events.some((e) => e.type === "ping" && e.data.id === hook.data!.id), events);
} finally {
  receiver.close();
}
console.log("ts client smoke: passed");
