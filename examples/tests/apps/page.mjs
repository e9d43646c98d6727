// The host page of host.mjs, bundled by esbuild and run in headless Chromium:
// /?tool=NAME&args=URLENCODED_JSON renders NAME's view in a sandboxed iframe, talks to it through
// AppBridge, and calls the tool with the arguments as a host does when a model calls it.
//
// What a test reads: document.body.dataset.state ("loading", "connected", "initialized",
// "result-sent", or "error" with the reason in <pre id="error">), window.viewMeta (the view
// resource's _meta.ui) and window.hostEvents (what happened, for debugging).

import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const hostEvents = (window.hostEvents = []);

function setState(state) {
  document.body.dataset.state = state;
  hostEvents.push(`state ${state}`);
}

function fail(error) {
  const pre = document.createElement("pre");
  pre.id = "error";
  pre.textContent = String(error?.stack ?? error);
  document.body.append(pre);
  setState("error");
}

/** Sends an MCP request to the server through host.mjs; `from` says who asks ("host" or "view"). */
async function relay(method, params, from) {
  const response = await fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method, params, from }),
  });
  const { result, error } = await response.json();
  if (error) {
    // AppBridge answers the view with this code when the error is thrown from a handler.
    throw Object.assign(new Error(error.message), { code: error.code });
  }
  return result;
}

/** The first item of a paginated list (tools/list, resources/list) that `matches`. */
async function findListed(method, key, matches) {
  let cursor;
  do {
    const page = await relay(method, cursor ? { cursor } : {}, "host");
    const found = page[key].find(matches);
    if (found) return found;
    cursor = page.nextCursor;
  } while (cursor);
  return undefined;
}

async function main() {
  const query = new URLSearchParams(location.search);
  const name = query.get("tool");
  const args = JSON.parse(query.get("args") ?? "{}");
  if (!name) throw new Error("no ?tool= in the page's address");

  const tool = await findListed("tools/list", "tools", (tool) => tool.name === name);
  if (!tool) throw new Error(`tools/list has no tool ${name}`);
  // Only the nested form: the deprecated flat `_meta["ui/resourceUri"]` is not accepted here.
  const uri = tool._meta?.ui?.resourceUri;
  if (!uri) throw new Error(`tool ${name} has no _meta.ui.resourceUri`);

  const { contents } = await relay("resources/read", { uri }, "host");
  const content = contents.find((c) => c.mimeType === RESOURCE_MIME_TYPE && typeof c.text === "string");
  if (!content) throw new Error(`resources/read of ${uri} has no ${RESOURCE_MIME_TYPE} text`);
  // The view's settings (csp, permissions, prefersBorder...) may sit on the content or, as a
  // default, on the resource as resources/list shows it.
  window.viewMeta =
    content._meta?.ui ??
    (await findListed("resources/list", "resources", (resource) => resource.uri === uri))?._meta?.ui;

  const title = document.createElement("h1");
  title.textContent = name;
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = "width:100%;height:400px;border:1px solid #ccc";
  iframe.srcdoc = content.text;

  const bridge = new AppBridge(
    null,
    { name: "views-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {}, openLinks: {} },
    // Given before connecting, it is the ui/initialize answer's hostContext; setHostContext
    // would send a host-context-changed notification instead.
    { hostContext: { toolInfo: { tool }, theme: "light" } },
  );
  // Without a Client in the browser, each request of the view is relayed by hand.
  bridge.oncalltool = (params) => {
    hostEvents.push(`view calls ${params.name}`);
    return relay("tools/call", params, "view");
  };
  bridge.onreadresource = (params) => relay("resources/read", params, "view");
  bridge.onlistresources = (params) => relay("resources/list", params, "view");
  bridge.onlistresourcetemplates = (params) => relay("resources/templates/list", params, "view");
  // Declared as supported, but nothing leaves this machine: the link is only noted.
  bridge.onopenlink = async ({ url }) => {
    hostEvents.push(`view opens ${url}`);
    return {};
  };
  bridge.onloggingmessage = ({ level, data }) => hostEvents.push(`view logs ${level}: ${JSON.stringify(data)}`);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  bridge.oninitialized = async () => {
    setState("initialized");
    try {
      await bridge.sendToolInput({ arguments: args });
      const result = await relay("tools/call", { name, arguments: args }, "host");
      await bridge.sendToolResult(result);
      setState("result-sent");
    } catch (error) {
      fail(error);
    }
  };

  document.body.append(title, iframe);
  // The view sends ui/initialize once its scripts run, which is a later task than this one, so
  // connecting now, before any await, cannot miss it.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  setState("connected");
}

main().catch(fail);
