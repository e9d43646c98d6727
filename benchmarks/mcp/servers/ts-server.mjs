// The TypeScript SDK baseline of benchmarks/mcp: `add_numbers` (+ 199 fillers with --tools 200)
// on @modelcontextprotocol/sdk's McpServer, over StdioServerTransport, or with --http PORT over
// StreamableHTTPServerTransport with sessions (node:http, one transport per session).
//
//   node ts-server.mjs [--tools 1|200] [--http PORT]
//
// Run with the Node 22 of scripts/node-env; the SDK and zod are resolved from
// target/node-env/node_modules (override with BENCH_NODE_MODULES).
import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules =
  process.env.BENCH_NODE_MODULES ?? path.join(here, "../../../target/node-env/node_modules");
const require = createRequire(path.join(modules, "noop.js"));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { isInitializeRequest } = require("@modelcontextprotocol/sdk/types.js");
const { z } = require("zod");

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const tools = Number(opt("--tools") ?? "1");
const httpPort = opt("--http");

// The same fillers as build.rs: four shapes, distinct names, descriptions and parameters.
function filler(i) {
  const tag = String(i).padStart(3, "0");
  switch (i % 4) {
    case 0:
      return {
        name: `get_record_${tag}`,
        description: `Returns record set ${i} of the benchmark catalog by id. Use it to read one record.`,
        shape: {
          id: z.string().describe(`Record id in set ${i}, e.g. r-${i}`),
          limit: z.number().int().optional().describe(`At most this many fields of set ${i}`),
        },
      };
    case 1:
      return {
        name: `find_entry_${tag}`,
        description: `Searches index ${i} for entries matching a query. Use it to look entries up.`,
        shape: {
          query: z.string().describe(`Words to find in index ${i}`),
          exact: z.boolean().describe(`Match index ${i} exactly`),
        },
      };
    case 2:
      return {
        name: `count_items_${tag}`,
        description: `Counts the items of range ${i} between two bounds. Use it for totals.`,
        shape: {
          start: z.number().describe(`Lower bound of range ${i}`),
          end: z.number().describe(`Upper bound of range ${i}`),
          step: z.number().optional().describe(`Step within range ${i}`),
        },
      };
    default:
      return {
        name: `list_tags_${tag}`,
        description: `Lists the tags of group ${i}, optionally by prefix. Use it to browse tags.`,
        shape: {
          prefix: z.string().optional().describe(`Only tags of group ${i} with this prefix`),
          max: z.number().int().describe(`At most this many tags of group ${i}`),
        },
      };
  }
}

function makeServer() {
  const server = new McpServer({ name: "ts-bench", version: "1.0.0" });
  server.registerTool(
    "add_numbers",
    {
      description: "Adds two numbers and returns their sum.",
      inputSchema: { a: z.number().describe("First number"), b: z.number().describe("Second number") },
      outputSchema: { result: z.number().describe("a + b") },
    },
    async ({ a, b }) => {
      const result = a + b;
      return { content: [{ type: "text", text: String(result) }], structuredContent: { result } };
    },
  );
  for (let i = 1; i < tools; i++) {
    const f = filler(i);
    server.registerTool(f.name, { description: f.description, inputSchema: f.shape }, async () => ({
      content: [{ type: "text", text: "ok" }],
    }));
  }
  return server;
}

if (httpPort === undefined) {
  await makeServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        try {
          resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined);
        } catch (e) {
          reject(e);
        }
      });
      req.on("error", reject);
    });
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith("/mcp")) {
        res.writeHead(404).end();
        return;
      }
      const body = req.method === "POST" ? await readBody(req) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        if (req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no session" }, id: null }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(Number(httpPort), "127.0.0.1");
}
