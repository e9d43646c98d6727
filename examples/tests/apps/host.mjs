// A small MCP Apps host for the views test: an MCP client connected to the server under test,
// and a local web page (page.mjs, run in headless Chromium) that renders a tool's view in a
// sandboxed iframe through ext-apps' AppBridge, relaying the page's MCP requests here.
//
//   node host.mjs --stdio <command> [args...]
//   node host.mjs --http <url>
//
// Prints `host: http://127.0.0.1:PORT/` on stdout once ready; everything else goes to stderr.
// Serves:
//   GET  /           the host page; it reads ?tool=NAME&args=URLENCODED_JSON
//   POST /rpc        {method, params, from} relayed to the server: {result} or {error: {code, message}}
//   GET  /log        what the host saw, in order: {kind: "elicitation", message} for each
//                    elicitation/create (always accepted), {kind: "call", name, arguments, from,
//                    isError} for each tools/call (`from` is "host" or "view")
// Exits when stdin closes or on SIGTERM, closing the client (which ends a stdio server).
//
// Packages come from the node-env: NODE_ENV_DIR, else target/node-env of this checkout.

import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const nodeModules = resolve(
  process.env.NODE_ENV_DIR ?? resolve(here, "../../../target/node-env"),
  "node_modules",
);
// An ESM `import` resolves bare names only from the importing file's directory (NODE_PATH does
// not apply), so the packages are loaded with a require rooted in the node-env. The SDK client
// and esbuild ship CommonJS builds; ext-apps is ESM only and loads through require(esm).
const require = createRequire(`${nodeModules}/`);
const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");
// The server helpers hold the extension's id; the module has no runtime dependency on a server.
const { EXTENSION_ID, RESOURCE_MIME_TYPE } = require("@modelcontextprotocol/ext-apps/server");
const esbuild = require("esbuild");

const [mode, ...target] = process.argv.slice(2);
const usable = (mode === "--stdio" && target.length > 0) || (mode === "--http" && target.length === 1);
if (!usable) {
  console.error("usage: node host.mjs --stdio <command> [args...] | --http <url>");
  process.exit(2);
}

// The page's bundle, built once: AppBridge and its dependencies for the browser.
const bundle = await esbuild.build({
  entryPoints: [resolve(here, "page.mjs")],
  bundle: true,
  format: "esm",
  platform: "browser",
  write: false,
  absWorkingDir: here,
  nodePaths: [nodeModules],
});
await esbuild.stop(); // its service process is not needed again
const pageHtml = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>views-test-host</title></head>
<body data-state="loading">
<script type="module">${bundle.outputFiles[0].text}</script>
</body>
</html>
`;

/** What the host saw, served at /log. */
const log = [];

const client = new Client(
  { name: "views-test-host", version: "1.0.0" },
  {
    capabilities: {
      elicitation: { form: {} },
      extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
    },
  },
);
// The server asks a person to approve a call this way; the test's person always approves.
client.setRequestHandler("elicitation/create", async (request) => {
  log.push({ kind: "elicitation", message: request.params.message });
  return { action: "accept", content: {} };
});
client.onclose = () => console.error("host: the connection to the server closed");

await client.connect(
  mode === "--stdio"
    ? new StdioClientTransport({
        command: target[0],
        args: target.slice(1),
        // The SDK passes the server only a few variables by default; the test sets the
        // server's environment through ours.
        env: process.env,
      })
    : new StreamableHTTPClientTransport(new URL(target[0])),
);
console.error(
  `host: connected to ${client.getServerVersion()?.name} over protocol ${client.getNegotiatedProtocolVersion()}`,
);

/** Relays one request of the page to the server, recording tools/call. */
async function relay({ method, params, from }) {
  let answer;
  try {
    answer = { result: await client.request({ method, params }) };
  } catch (error) {
    // ProtocolError carries the JSON-RPC code; local failures (a bad method name) have none.
    const code = Number.isInteger(error.code) ? error.code : -32603;
    answer = { error: { code, message: error.message } };
  }
  if (method === "tools/call") {
    log.push({
      kind: "call",
      name: params.name,
      arguments: params.arguments,
      from,
      isError: answer.error !== undefined || answer.result.isError === true,
    });
  }
  return answer;
}

const http = createServer(async (request, response) => {
  const reply = (status, type, body) => {
    response.writeHead(status, { "content-type": type });
    response.end(body);
  };
  const { pathname } = new URL(request.url, "http://host");
  if (request.method === "GET" && pathname === "/") {
    reply(200, "text/html; charset=utf-8", pageHtml);
  } else if (request.method === "GET" && pathname === "/log") {
    reply(200, "application/json", JSON.stringify(log));
  } else if (request.method === "POST" && pathname === "/rpc") {
    let body = "";
    for await (const chunk of request) body += chunk;
    let asked;
    try {
      asked = JSON.parse(body);
    } catch (error) {
      return reply(400, "text/plain", `${error.message}\n`);
    }
    reply(200, "application/json", JSON.stringify(await relay(asked)));
  } else {
    reply(404, "text/plain", "not found\n");
  }
});
http.listen(0, "127.0.0.1", () => {
  process.stdout.write(`host: http://127.0.0.1:${http.address().port}/\n`);
});

let closing = false;
async function shutdown(why) {
  if (closing) return;
  closing = true;
  console.error(`host: ${why}, closing`);
  http.close();
  await client.close();
  process.exit(0);
}
process.stdin.on("end", () => shutdown("stdin closed"));
process.stdin.resume();
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
