import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { APICallError, RetryError, generateText, stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { z } from "zod";
import { startScriptedModelServer, type ScriptedModelServer } from "../fixtures/model/server.js";
import { connectScriptedModelServer } from "../fixtures/model/client.js";
import { parseModelScript, selectTurn } from "../fixtures/model/script.js";

let server: ScriptedModelServer;

beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  server.reset();
});

function weatherTool(seen: Array<{ city: string }>) {
  return tool({
    description: "Get the weather for a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      seen.push({ city });
      return { city, forecast: "sunny", tempC: 21 };
    },
  });
}

describe("scripted model server", () => {
  it("drives generateText with createOpenAI().chat() through a tool call", async () => {
    server.setScript("m1", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], usage: { prompt_tokens: 11, completion_tokens: 7 } },
      { text: "It is sunny in Paris." },
    ]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: "sk-run-123" });
    const seen: Array<{ city: string }> = [];

    const result = await generateText({
      model: openai.chat("m1"),
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(5),
      prompt: "What's the weather in Paris?",
    });

    expect(seen).toEqual([{ city: "Paris" }]);
    expect(result.text).toBe("It is sunny in Paris.");
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe("tool-calls");
    expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: "get_weather", input: { city: "Paris" } });
    expect(result.steps[0]!.toolCalls[0]!.toolCallId).toMatch(/^call_\d+$/);
    expect(result.steps[0]!.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
    expect(result.finishReason).toBe("stop");
    expect(result.totalUsage.inputTokens).toBeGreaterThan(11);

    const calls = server.calls("m1");
    expect(calls.map((c) => c.turnIndex)).toEqual([0, 1]);
    expect(calls.every((c) => c.apiKey === "sk-run-123" && !c.stream)).toBe(true);
    expect(calls[0]!.tools).toEqual(["get_weather"]);
    expect(calls.map((c) => c.outcome)).toEqual(["tool_calls", "stop"]);
    // second request carries the assistant tool call and the tool result
    expect(calls[1]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(calls[1]!.messages[2]!.tool_call_id).toBe(calls[0]!.toolCallIds[0]);
  });

  it("drives streamText with createOpenAICompatible (SSE tool-call deltas and usage)", async () => {
    server.setScript("m2", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] },
      { text: "Oslo: sunny, 21C. Have a nice day!" },
    ]);
    const provider = createOpenAICompatible({ name: "scripted", baseURL: server.url, apiKey: "key-b", includeUsage: true });
    const seen: Array<{ city: string }> = [];

    const result = streamText({
      model: provider("m2"),
      tools: { get_weather: weatherTool(seen) },
      stopWhen: stepCountIs(5),
      prompt: "Weather in Oslo?",
    });
    const types: string[] = [];
    let text = "";
    const toolInputs: unknown[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === "text-delta") text += part.text;
      if (part.type === "tool-call") toolInputs.push(part.input);
      if (part.type === "error") throw part.error;
    }

    expect(seen).toEqual([{ city: "Oslo" }]);
    expect(toolInputs).toEqual([{ city: "Oslo" }]);
    expect(text).toBe("Oslo: sunny, 21C. Have a nice day!");
    expect(types).toContain("tool-result");
    expect(await result.text).toBe("Oslo: sunny, 21C. Have a nice day!");
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);

    const calls = server.calls("m2");
    expect(calls.map((c) => [c.turnIndex, c.stream, c.includeUsage, c.apiKey])).toEqual([
      [0, true, true, "key-b"],
      [1, true, true, "key-b"],
    ]);
  });

  it("omits the usage chunk when stream_options.include_usage is not sent", async () => {
    // createOpenAICompatible only sends stream_options when includeUsage: true
    const provider = createOpenAICompatible({ name: "scripted", baseURL: server.url, apiKey: "k" });
    const result = streamText({ model: provider("instant"), prompt: "hi" });
    expect(await result.text).toBe("ok");
    expect((await result.usage).inputTokens).toBeUndefined();
    expect(server.calls("instant")[0]).toMatchObject({ stream: true, includeUsage: false });

    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const r2 = streamText({ model: openai.chat("instant"), prompt: "hi" });
    expect(await r2.text).toBe("ok");
    expect((await r2.usage).inputTokens).toBeGreaterThan(0);
    expect(server.calls("instant")[1]).toMatchObject({ stream: true, includeUsage: true });
  });

  it("selects turn lists byQuery, and each user query restarts at turn 0", async () => {
    server.setScript("shared", {
      byQuery: {
        weather: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] }, { text: "weather answer" }],
        joke: [{ text: "joke answer" }],
      },
      default: [{ text: "default answer" }],
    });
    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const seen: Array<{ city: string }> = [];
    const run = (prompt: string) =>
      generateText({
        model: openai.chat("shared"),
        tools: { get_weather: weatherTool(seen) },
        stopWhen: stepCountIs(5),
        prompt,
      });

    expect((await run("tell me the weather please")).text).toBe("weather answer");
    expect((await run("tell me a joke")).text).toBe("joke answer");
    expect((await run("something else")).text).toBe("default answer");
    expect(seen).toEqual([{ city: "Rome" }]);

    // a follow-up user message after earlier assistant turns starts again at turn 0
    const followUp = await generateText({
      model: openai.chat("shared"),
      messages: [
        { role: "user", content: "tell me a joke" },
        { role: "assistant", content: "joke answer" },
        { role: "user", content: "another joke" },
      ],
    });
    expect(followUp.text).toBe("joke answer");

    const calls = server.calls("shared");
    expect(calls.map((c) => [c.list, c.turnIndex])).toEqual([
      ["weather", 0],
      ["weather", 1],
      ["joke", 0],
      ["default", 0],
      ["joke", 0],
    ]);
  });

  it('answers "done" when turns run out and "ok" (with usage) for unscripted models', async () => {
    server.setScript("short", [{ text: "first" }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const r = await generateText({
      model: openai.chat("short"),
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "first" },
      ],
    });
    expect(r.text).toBe("done");
    expect(server.calls("short")[0]!.turnIndex).toBe(1);

    const instant = await generateText({ model: openai.chat("bench-instant"), prompt: "hello there" });
    expect(instant.text).toBe("ok");
    expect(instant.usage.inputTokens).toBeGreaterThan(0);
    expect(instant.usage.outputTokens).toBeGreaterThan(0);
    expect(server.calls("bench-instant")[0]).toMatchObject({ scripted: false, list: null });
  });

  it("surfaces an error turn as an APICallError with the scripted status and message", async () => {
    server.setScript("bad", [{ error: { status: 400, message: "context length exceeded", code: "context_length_exceeded" } }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const err = await generateText({ model: openai.chat("bad"), prompt: "x" }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    const apiErr = err as APICallError;
    expect(apiErr.statusCode).toBe(400);
    expect(apiErr.message).toBe("context length exceeded");
    expect(apiErr.isRetryable).toBe(false);
    expect(apiErr.data).toMatchObject({ error: { code: "context_length_exceeded", type: "invalid_request_error" } });
    expect(server.calls("bad")).toHaveLength(1);
  });

  it("replays the same turn on SDK retries (stateless), and error.times lets a retry succeed", async () => {
    server.setScript("flaky", [{ error: { status: 503, message: "overloaded", retryAfterMs: 1 } }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const err = await generateText({ model: openai.chat("flaky"), prompt: "x", maxRetries: 2 }).catch((e: unknown) => e);
    expect(RetryError.isInstance(err)).toBe(true);
    const last = (err as RetryError).lastError;
    expect(APICallError.isInstance(last) && last.statusCode).toBe(503);
    expect(server.calls("flaky").map((c) => [c.turnIndex, c.outcome])).toEqual([
      [0, "error"],
      [0, "error"],
      [0, "error"],
    ]);

    server.setScript("flaky2", [{ error: { status: 429, message: "slow down", retryAfterMs: 1, times: 1 }, text: "recovered" }]);
    const ok = await generateText({ model: openai.chat("flaky2"), prompt: "x", maxRetries: 2 });
    expect(ok.text).toBe("recovered");
    expect(server.calls("flaky2").map((c) => c.outcome)).toEqual(["error", "stop"]);
  });

  it("stops a delayed turn early when the client aborts, and keeps serving", async () => {
    server.setScript("slow", [{ delayMs: 30_000, text: "too late" }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 100);
    const err = await generateText({ model: openai.chat("slow"), prompt: "x", abortSignal: ac.signal }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(5_000);
    await vi.waitFor(() => expect(server.calls("slow")[0]!.outcome).toBe("aborted"));

    // streaming request aborted during the delay, too
    const provider = createOpenAICompatible({ name: "s", baseURL: server.url, apiKey: "k" });
    const ac2 = new AbortController();
    setTimeout(() => ac2.abort(), 100);
    const stream = streamText({ model: provider("slow"), prompt: "x", abortSignal: ac2.signal, onError: () => {} });
    const parts: string[] = [];
    for await (const p of stream.fullStream) parts.push(p.type);
    expect(parts).toContain("abort");
    await vi.waitFor(() => expect(server.calls("slow")[1]!.outcome).toBe("aborted"));

    server.setScript("fast", [{ delayMs: 20, text: "on time" }]);
    expect((await generateText({ model: openai.chat("fast"), prompt: "x" })).text).toBe("on time");
  });

  it("requires a bearer API key", async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_api_key", type: "invalid_request_error" } });

    // createOpenAICompatible omits the Authorization header when apiKey is empty
    const provider = createOpenAICompatible({ name: "s", baseURL: server.url });
    const err = await generateText({ model: provider("m"), prompt: "x" }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode).toBe(401);
    expect(server.calls()).toHaveLength(0);
  });

  it("rejects createOpenAI()(id) (Responses API) with a clear 404", async () => {
    const openai = createOpenAI({ baseURL: server.url, apiKey: "k" });
    const err = await generateText({ model: openai("m"), prompt: "x" }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err) && err.statusCode).toBe(404);
    expect((err as Error).message).toMatch(/Chat Completions/);
  });

  it("can be scripted and inspected over HTTP from another process", async () => {
    const admin = connectScriptedModelServer(server.url);
    await admin.setScript("vendor/model-x", [{ text: "remote hello" }]);
    const openai = createOpenAI({ baseURL: server.url, apiKey: "per-run-key" });
    expect((await generateText({ model: openai.chat("vendor/model-x"), prompt: "x" })).text).toBe("remote hello");

    const calls = await admin.calls("vendor/model-x");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ model: "vendor/model-x", apiKey: "per-run-key", turnIndex: 0, outcome: "stop" });

    const models = (await (
      await fetch(`${server.url}/models`, { headers: { authorization: "Bearer k" } })
    ).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(["vendor/model-x"]);

    const bad = await fetch(`${server.origin}/_scripts/x`, { method: "PUT", body: JSON.stringify([{ nope: 1 }]) });
    expect(bad.status).toBe(400);

    await admin.reset();
    expect(await admin.calls()).toEqual([]);
    expect((await generateText({ model: openai.chat("vendor/model-x"), prompt: "x" })).text).toBe("ok");
  });
});

describe("script selection (pure)", () => {
  it("counts assistant messages since the last user message", () => {
    const script = parseModelScript([{ text: "a" }, { text: "b" }]);
    const sel = selectTurn(script, [
      { role: "system", content: "s" },
      { role: "user", content: "q1" },
      { role: "assistant", content: null, tool_calls: [] },
      { role: "tool", content: "r" },
      { role: "assistant", content: "x" },
      { role: "user", content: [{ type: "text", text: "q2" }] },
      { role: "assistant", content: null },
      { role: "tool", content: "r" },
    ]);
    expect(sel).toMatchObject({ turnIndex: 1, turn: { text: "b" }, lastUserText: "q2", list: "turns" });
  });

  it("validates scripts", () => {
    expect(() => parseModelScript({ byQuery: { a: [{ error: { status: 200, message: "x" } }] } })).toThrow(/status/);
    expect(() => parseModelScript({ turns: [] })).toThrow(/unknown field/);
    expect(() => parseModelScript([{ toolCalls: [{ name: "t", arguments: "{}" }] }])).toThrow(/arguments/);
  });
});
