// An MCP server written with the official TypeScript SDK around ONE planted difference, for
// harness/tests/mcp_planted.rs: `conform run --mcp` must catch it and name it.
//
// Usage: node planted_server.mjs <clients dir> <conform> <root> [unplanted]
//
// <clients dir> holds node_modules/@modelcontextprotocol/sdk (installed by .ci/run). The server is
// the SDK's low-level `Server` over its stdio transport, with handlers for tools/list and
// tools/call. Behind it, the SDK's `Client` runs a real `<conform> mcp --root <root>` (offline:
// no credential, the search endpoints on a closed loopback port) and every request is relayed
// to it, except that web_search's `count` has the maximum 25 instead of 20, as an implementation
// that got the bound wrong would have it:
// - tools/list says `"maximum": 25` for web_search's count;
// - a web_search call whose count is above 20 and at most 25 is validated as if count were
//   within the bound: it is relayed with 5 taken off count (which keeps whether it is a whole
//   number and puts it in (15, 20]), so it is refused for its other problems only, or, with
//   none, runs the search (which fails for want of a credential, as the real server's does);
// - a refusal of a count above 25 says `<=25` where the real server says `<=20`.
// With `unplanted`, the bound is 20 and the server is the same relay without the difference (so
// that the test can tell what the relay through the SDK changes by itself from the plant).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [clients, conform, root, mode] = process.argv.slice(2);
const sdk = (path) =>
  import(pathToFileURL(join(clients, "node_modules/@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Server } = await sdk("server/index.js");
const { StdioServerTransport } = await sdk("server/stdio.js");
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema, McpError } = await sdk("types.js");

const MAXIMUM = mode === "unplanted" ? 20 : 25;
const TOO_BIG = "count: Too big: expected number to be <=20";

// Offline: no credential from the environment, and the providers' endpoints on a port nothing
// listens on, so that no call can reach past 127.0.0.1 even with a credential.
const host = JSON.stringify({
  env: {},
  endpoints: {
    exa: "http://127.0.0.1:9/exa",
    brave: "http://127.0.0.1:9/brave",
    spider: "http://127.0.0.1:9/spider",
    "zai-search-international": "http://127.0.0.1:9/zai",
    "zai-reader-international": "http://127.0.0.1:9/zai",
    "zai-search-china": "http://127.0.0.1:9/zai",
    "zai-reader-china": "http://127.0.0.1:9/zai",
  },
});
const reference = new Client({ name: "planted-relay", version: "1.0.0" });
await reference.connect(
  new StdioClientTransport({
    command: conform,
    args: ["mcp", "--root", root, "--host", host],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "inherit",
  }),
);

const server = new Server({ name: "planted", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const listed = await reference.listTools(request.params);
  for (const tool of listed.tools) {
    if (tool.name === "web_search") {
      tool.inputSchema.properties.count.maximum = MAXIMUM;
    }
  }
  return listed;
});

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name } = request.params;
  let args = request.params.arguments;
  const count = args?.count;
  const planted = name === "web_search" && typeof count === "number";
  if (planted && count > 20 && count <= MAXIMUM) {
    args = { ...args, count: count - 5 };
  }
  try {
    const result = await reference.callTool({ name, arguments: args });
    if (planted && count > MAXIMUM && result.isError) {
      for (const block of result.content) {
        if (block.type === "text") {
          block.text = block.text.replace(TOO_BIG, `count: Too big: expected number to be <=${MAXIMUM}`);
        }
      }
    }
    return result;
  } catch (error) {
    // A JSON-RPC error of the real server is this server's JSON-RPC error.
    if (error instanceof McpError) throw error;
    throw new McpError(-32603, String(error));
  }
});

const transport = new StdioServerTransport();
transport.onclose = () => reference.close();
await server.connect(transport);
process.stdin.on("end", async () => {
  await reference.close();
  process.exit(0);
});
