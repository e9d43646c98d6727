// `toolctl serve --stdio` driven by the official TypeScript MCP client (@modelcontextprotocol/sdk,
// installed into target/node-env by scripts/node-env).
//
//   node ts_client.mjs NODE_MODULES TOOLCTL
//
// Lists the tools (the client compiles every output schema with Ajv there) and calls a few,
// one of them with `null` for an optional parameter. Each passing check prints `ok <name>`; a
// failure throws, so the process exits non-zero. The server's stderr is relayed with a
// `[server]` prefix, so whatever else reaches stderr is the client's own (Ajv's warnings among
// it), for the caller to inspect.
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [modules, toolctl] = process.argv.slice(2);
if (!modules || !toolctl) {
  console.error("usage: ts_client.mjs NODE_MODULES TOOLCTL");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

function expect(condition, reason) {
  if (!condition) throw new Error(reason);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "toolctl-ts-"));
fs.writeFileSync(path.join(root, "notes.txt"), "one\ntwo\nthree\n");

const transport = new StdioClientTransport({
  command: toolctl,
  args: ["serve", "--stdio", "--root", root],
  stderr: "pipe",
});
transport.stderr.on("data", (chunk) => {
  for (const line of chunk.toString().split("\n").filter(Boolean)) {
    process.stderr.write(`[server] ${line}\n`);
  }
});
const client = new Client({ name: "ts-client-test", version: "1.0.0" });
const timer = setTimeout(() => {
  console.error("no outcome within 30 s");
  process.exit(1);
}, 30_000);

try {
  await client.connect(transport);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ["get_current_time", "read_file", "list_directory", "fetch_url"]) {
    expect(names.includes(name), `${name} is not listed: ${names}`);
  }
  console.log(`ok tools/list (${tools.length} tools)`);

  // callTool validates structuredContent against the listed outputSchema.
  const time = await client.callTool({ name: "get_current_time", arguments: { timezone: "Asia/Tokyo" } });
  expect(!time.isError, `get_current_time failed: ${JSON.stringify(time.content)}`);
  expect(time.structuredContent?.timezone === "Asia/Tokyo", `structuredContent: ${JSON.stringify(time)}`);
  console.log("ok get_current_time");

  // The listing leaves `null` out of an optional parameter's schema; a client that sends it
  // anyway is still served.
  const read = await client.callTool({
    name: "read_file",
    arguments: { path: "notes.txt", start_line: null, end_line: 2 },
  });
  expect(!read.isError, `read_file with start_line null failed: ${JSON.stringify(read.content)}`);
  expect(read.structuredContent?.content === "one\ntwo\n", `read_file: ${JSON.stringify(read)}`);
  console.log("ok read_file with null");

  const listing = await client.callTool({ name: "list_directory", arguments: { path: "." } });
  expect(!listing.isError, `list_directory failed: ${JSON.stringify(listing.content)}`);
  console.log("ok list_directory");
} finally {
  clearTimeout(timer);
  await client.close();
  fs.rmSync(root, { recursive: true, force: true });
}
