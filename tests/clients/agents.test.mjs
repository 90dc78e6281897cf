// @openai/agents (package.json's version) through `cmfpipe serve`: the default agent loop with one
// tool, which speaks the Responses API, non-streamed and streamed. The model calls lookup_user,
// the SDK runs it, sends its result back and the model answers. Checks what the upstream received
// (the user's address, the call's arguments and the tool's result redacted) and the final output.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

import { CLIENT_TIMEOUT_MS, EMAIL, REDACTED, Stand, TEST_TIMEOUT } from './harness.mjs';

let stand;
before(async () => {
  stand = await Stand.start();
  setTracingDisabled(true); // no trace export to the provider
  setDefaultOpenAIClient(
    new OpenAI({ baseURL: stand.baseURL, apiKey: 'sk-clients', maxRetries: 0, timeout: CLIENT_TIMEOUT_MS }),
  );
});
after(() => stand?.stop());

function lookupAgent(calls) {
  const lookupUser = tool({
    name: 'lookup_user',
    description: 'Finds a user by e-mail address',
    parameters: z.object({ email: z.string() }),
    execute: async ({ email }) => {
      calls.push(email);
      return `${EMAIL} is user 7`;
    },
  });
  return new Agent({
    name: 'Support',
    instructions: `Help the owner, ${EMAIL}.`,
    model: 'flow-tool',
    tools: [lookupUser],
  });
}

// The two calls of the loop, as the upstream received them.
function checkLoop(received, streamed) {
  assert.deepEqual(
    received.map((r) => r.path),
    ['/v1/responses', '/v1/responses'],
    'the agent loop speaks Responses',
  );
  for (const { body } of received) {
    assert.equal(body.stream ?? false, streamed);
    assert.equal(body.instructions, `Help the owner, ${REDACTED}.`);
    assert.ok(!JSON.stringify(body).includes(EMAIL), JSON.stringify(body));
    assert.deepEqual(
      body.tools.map((t) => [t.type, t.name]),
      [['function', 'lookup_user']],
    );
  }
  const input = received[1].body.input;
  const call = input.find((item) => item.type === 'function_call');
  const output = input.find((item) => item.type === 'function_call_output');
  assert.equal(call.call_id, 'call_lookup_1');
  assert.equal(call.name, 'lookup_user');
  assert.deepEqual(JSON.parse(call.arguments), { email: REDACTED });
  assert.equal(output.call_id, 'call_lookup_1');
  const outputText =
    typeof output.output === 'string' ? output.output : output.output.map((part) => part.text).join('');
  assert.equal(outputText, `${REDACTED} is user 7`);
}

describe('openai agents', () => {
  test('run(): the one-tool loop over Responses, addresses redacted both ways', TEST_TIMEOUT, async () => {
    const calls = [];
    stand.mark();
    const result = await run(lookupAgent(calls), `Who is ${EMAIL}?`, { maxTurns: 4 });
    assert.deepEqual(calls, [REDACTED], 'the tool ran once, with the redacted address');
    assert.equal(result.finalOutput, `done: ${REDACTED} is user 7`);
    checkLoop(stand.received(), false);
    assert.ok(JSON.stringify(stand.received()[0].body.input).includes(`Who is ${REDACTED}?`));
  });

  test('run(stream: true): the same loop streamed', TEST_TIMEOUT, async () => {
    const calls = [];
    stand.mark();
    const result = await run(lookupAgent(calls), `Who is ${EMAIL}?`, { maxTurns: 4, stream: true });
    let text = '';
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    assert.deepEqual(calls, [REDACTED]);
    assert.equal(text, `done: ${REDACTED} is user 7`);
    assert.equal(result.finalOutput, `done: ${REDACTED} is user 7`);
    checkLoop(stand.received(), true);
  });
});
