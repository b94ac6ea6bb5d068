"""An agent's host on the Python MCP SDK: starts `rye-search mcp <args>` over stdio and reports,
as one JSON line, what it received (tool surface, a search answer, a resource read, completions,
failures). `test/python-client.test.mjs` runs it and checks the report.

    python mcp_client.py <node> <rye-search.js> [server args...]
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

TEMPLATE = "rye://{kind}/{+id}"


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main() -> None:
    node, cli, *server_args = sys.argv[1:]
    params = StdioServerParameters(command=node, args=[cli, "mcp", *server_args])
    report = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        report["tools"] = [t.name for t in tools.tools]
        report["tools_chars"] = len(json.dumps({"tools": dump(tools)["tools"]}, separators=(",", ":")))

        found = await session.call_tool("rye_search", {"query": "read"})
        report["search_error"] = found.is_error
        report["search_text"] = next(c.text for c in found.content if c.type == "text")
        report["search_ids"] = [f"{r['type']}:{r['id']}" for r in found.structured_content["results"]]
        links = [c for c in found.content if c.type == "resource_link"]
        report["links"] = [str(link.uri) for link in links]

        if links:
            read_back = await session.read_resource(str(links[0].uri))
            first = read_back.contents[0]
            report["read"] = {"uri": str(first.uri), "text": first.text, "meta": first.meta}

        try:
            await session.read_resource("rye://tool/rye/file/unsigned")
            report["unsigned"] = "read"
        except Exception as err:  # the SDK raises McpError for an error response
            report["unsigned"] = getattr(getattr(err, "error", None), "data", None) or str(err)

        ref = types.ResourceTemplateReference(type="ref/resource", uri=TEMPLATE)
        kinds = await session.complete(ref, {"name": "kind", "value": "t"})
        report["complete_kind"] = kinds.completion.values
        ids = await session.complete(ref, {"name": "id", "value": "rye/file/"}, {"kind": "tool"})
        report["complete_id"] = ids.completion.values
    print(json.dumps(report))


asyncio.run(main())
