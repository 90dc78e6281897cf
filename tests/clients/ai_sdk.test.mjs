// The AI SDK (ai, @ai-sdk/openai, @ai-sdk/openai-compatible; package.json's versions) through
// `cmfpipe serve`: generateText and streamText with one tool, through the provider's default
// `openai(...)` (the Responses API), `openai.chat(...)` and the OpenAI-compatible provider (Chat
// Completions); and a processor's stop (tool_guard refusing delete_user) costing exactly one
// upstream call, streamed and not: the SDK must see nothing it retries.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';

import { CLIENT_TIMEOUT_MS, EMAIL, REDACTED, Stand, TEST_TIMEOUT } from './harness.mjs';

let stand;
let providers;
before(async () => {
  stand = await Stand.start();
  const openai = createOpenAI({ baseURL: stand.baseURL, apiKey: 'sk-clients' });
  const compatible = createOpenAICompatible({
    name: 'cmfpipe',
    baseURL: stand.baseURL,
    apiKey: 'sk-clients',
  });
  providers = {
    'openai(...)': { model: (id) => openai(id), path: '/v1/responses' },
    'openai.chat(...)': { model: (id) => openai.chat(id), path: '/v1/chat/completions' },
    'openai-compatible': { model: (id) => compatible(id), path: '/v1/chat/completions' },
  };
});
after(() => stand?.stop());

const PROVIDERS = ['openai(...)', 'openai.chat(...)', 'openai-compatible'];

function lookupTool(calls) {
  return tool({
    description: 'Finds a user by e-mail address',
    inputSchema: z.object({ email: z.string() }),
    execute: async ({ email }) => {
      calls.push(email);
      return `${EMAIL} is user 7`;
    },
  });
}

function deleteTool(calls) {
  return tool({
    description: 'Deletes a user',
    inputSchema: z.object({ id: z.number() }),
    execute: async ({ id }) => {
      calls.push(id);
      return 'deleted';
    },
  });
}

// The two upstream calls of a one-tool loop: on the provider's path, nothing unredacted.
function checkLoop(received, path) {
  assert.deepEqual(
    received.map((r) => r.path),
    [path, path],
  );
  for (const { body } of received) assert.ok(!JSON.stringify(body).includes(EMAIL), JSON.stringify(body));
  const second = JSON.stringify(received[1].body);
  assert.ok(second.includes(`${REDACTED} is user 7`), `the tool's result goes back redacted: ${second}`);
}

describe('ai sdk: one tool', () => {
  for (const name of PROVIDERS) {
    test(`generateText, ${name}: the tool loop, addresses redacted both ways`, TEST_TIMEOUT, async () => {
      const calls = [];
      stand.mark();
      const result = await generateText({
        model: providers[name].model('flow-tool'),
        system: `Help the owner, ${EMAIL}.`,
        prompt: `Who is ${EMAIL}?`,
        tools: { lookup_user: lookupTool(calls) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      assert.deepEqual(calls, [REDACTED]);
      assert.equal(result.text, `done: ${REDACTED} is user 7`);
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.steps.length, 2);
      assert.equal(result.steps[0].toolCalls[0].toolCallId, 'call_lookup_1');
      checkLoop(stand.received(), providers[name].path);
    });

    test(
      `streamText, ${name}: the tool loop streamed, addresses redacted both ways`,
      TEST_TIMEOUT,
      async () => {
        const calls = [];
        const errors = [];
        stand.mark();
        const result = streamText({
          model: providers[name].model('flow-tool'),
          system: `Help the owner, ${EMAIL}.`,
          prompt: `Who is ${EMAIL}?`,
          tools: { lookup_user: lookupTool(calls) },
          stopWhen: stepCountIs(3),
          maxRetries: 0,
          abortSignal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
          onError: ({ error }) => errors.push(error),
        });
        let text = '';
        for await (const delta of result.textStream) text += delta;
        assert.deepEqual(errors.map(String), []);
        assert.deepEqual(calls, [REDACTED]);
        assert.equal(text, `done: ${REDACTED} is user 7`);
        assert.equal(await result.finishReason, 'stop');
        checkLoop(stand.received(), providers[name].path);
        assert.ok(stand.received().every((r) => r.body.stream === true));
      },
    );
  }
});

describe('ai sdk: a stop is one upstream call', () => {
  for (const name of PROVIDERS) {
    test(
      `generateText, ${name}: a refused tool call is a 403 the SDK does not retry`,
      TEST_TIMEOUT,
      async () => {
        const calls = [];
        stand.mark();
        // The SDK's default retries (2), as a user would have them.
        const refused = await generateText({
          model: providers[name].model('flow-delete'),
          prompt: 'Delete user 7',
          tools: { delete_user: deleteTool(calls) },
          abortSignal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
        }).then(
          () => null,
          (error) => error,
        );
        assert.equal(stand.received().length, 1, `upstream calls: ${stand.received().length}`);
        assert.ok(refused, 'generateText must fail');
        assert.equal(refused.statusCode ?? refused.lastError?.statusCode, 403, String(refused));
        assert.deepEqual(calls, []);
      },
    );

    test(
      `streamText, ${name}: a call refused before any byte went out is a 403, never retried`,
      TEST_TIMEOUT,
      async () => {
        const calls = [];
        const errors = [];
        stand.mark();
        const result = streamText({
          model: providers[name].model('flow-delete-only'),
          prompt: 'Delete user 7',
          tools: { delete_user: deleteTool(calls) },
          abortSignal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
          onError: ({ error }) => errors.push(error),
        });
        const parts = [];
        for await (const part of result.fullStream) parts.push(part);
        assert.deepEqual(
          parts.filter((p) => p.type.startsWith('tool-')),
          [],
          'no part of the refused call reaches the client',
        );
        assert.equal(stand.received().length, 1, `upstream calls: ${stand.received().length}`);
        assert.deepEqual(calls, []);
        assert.equal(errors.length, 1, errors.map(String).join('; '));
        assert.equal(errors[0].statusCode, 403, String(errors[0]));
        assert.equal(errors[0].isRetryable, false);
      },
    );

    test(
      `streamText, ${name}: a call refused after text ends the turn as a content filter, never retried`,
      TEST_TIMEOUT,
      async () => {
        const calls = [];
        const errors = [];
        stand.mark();
        const result = streamText({
          model: providers[name].model('flow-delete'),
          prompt: 'Delete user 7',
          tools: { delete_user: deleteTool(calls) },
          abortSignal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
          onError: ({ error }) => errors.push(error),
        });
        const parts = [];
        for await (const part of result.fullStream) parts.push(part);
        assert.equal(stand.received().length, 1, `upstream calls: ${stand.received().length}`);
        assert.deepEqual(calls, []);
        assert.deepEqual(errors.map(String), []);
        assert.deepEqual(
          parts.filter((p) => p.type.startsWith('tool-')),
          [],
          'no part of the refused call reaches the client',
        );
        const text = parts
          .filter((p) => p.type === 'text-delta')
          .map((p) => p.text)
          .join('');
        assert.ok(
          text.length > 0 && 'Deleting now.'.startsWith(text),
          `the text before the call: ${JSON.stringify(text)}`,
        );
        assert.equal(
          parts.find((p) => p.type === 'finish')?.finishReason,
          'content-filter',
          JSON.stringify(parts),
        );
      },
    );
  }
});
