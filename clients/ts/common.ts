// What the TypeScript smoke tests of `make clients` share, whichever
// generator typed their client: the organisation's Host on every request,
// a step check, a local receiver of webhook deliveries, and the walk of a
// list by its Link header.
import http from "node:http";
import type { AddressInfo } from "node:net";

// hostFetch is a fetch that sends each request to the server its URL names
// with the organisation's Host header, which the fetch of Node.js does not
// let a caller set: the organisation is chosen by Host, the server listens
// on 127.0.0.1.
export function hostFetch(orgHost: string): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
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

// checker returns check, which fails the smoke test unless ok and logs the
// step under the client's name otherwise.
export function checker(client: string): (step: string, ok: boolean, detail: unknown) => void {
  return (step, ok, detail) => {
    if (!ok) {
      throw new Error(`${client}: ${step}: ${JSON.stringify(detail)}`);
    }
    console.log(`${client}: ${step}: ok`);
  };
}

// Delivery is one webhook request as the receiver got it: the Standard
// Webhooks headers and the raw body.
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

// Receiver keeps every delivery POSTed to url.
export interface Receiver {
  url: string;
  received: Delivery[];
  // wait resolves once n deliveries arrived, or after 30 s.
  wait(n: number): Promise<void>;
  close(): void;
}

// receiver starts a Receiver on a free port of 127.0.0.1.
export async function receiver(): Promise<Receiver> {
  const received: Delivery[] = [];
  const server = http.createServer((req, res) => {
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async wait(n) {
      const deadline = Date.now() + 30_000;
      while (received.length < n && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => server.close(),
  };
}

// nextCursor is the cursor of the rel="next" URL of a Link header, or
// undefined on the last page: taken from the link, never built.
export function nextCursor(link: string | null): string | undefined {
  const m = /<([^>]+)>; rel="next"/.exec(link ?? "");
  if (!m?.[1]) {
    return undefined;
  }
  const cursor = new URL(m[1]).searchParams.get("cursor");
  if (!cursor) {
    throw new Error(`Link ${link}: rel="next" without a cursor`);
  }
  return cursor;
}

// walk follows a list from its first page: page fetches the page at cursor
// (undefined for the first) and returns its Link header and its records'
// names. It fails after max pages, so a link that never ends cannot loop.
export async function walk(
  max: number,
  page: (cursor: string | undefined) => Promise<{ link: string | null; names: string[] }>,
): Promise<string[]> {
  const all: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < max; i++) {
    const { link, names } = await page(cursor);
    all.push(...names);
    cursor = nextCursor(link);
    if (cursor === undefined) {
      return all;
    }
  }
  throw new Error(`the list did not end within ${max} pages: ${all.join(",")}`);
}
