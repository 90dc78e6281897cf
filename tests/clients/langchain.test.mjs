// @langchain/openai (package.json's version) through `cmfpipe serve`: ChatOpenAI on Chat
// Completions and with `useResponsesApi: true`: invoke, stream, and a tool call bound with
// bindTools whose result goes back. Checks what the upstream received (redacted) and what the
// client got.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';

import { CLIENT_TIMEOUT_MS, EMAIL, REDACTED, Stand, TEST_TIMEOUT } from './harness.mjs';

let stand;
before(async () => {
  stand = await Stand.start();
});
after(() => stand?.stop());

const lookupTool = {
  type: 'function',
  function: {
    name: 'lookup_user',
    description: 'Finds a user by e-mail address',
    parameters: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
  },
};

const VARIANTS = [
  { name: 'ChatOpenAI', options: {}, path: '/v1/chat/completions' },
  { name: 'ChatOpenAI useResponsesApi', options: { useResponsesApi: true }, path: '/v1/responses' },
];

function chat(model, options) {
  return new ChatOpenAI({
    model,
    apiKey: 'sk-clients',
    configuration: { baseURL: stand.baseURL },
    maxRetries: 0,
    timeout: CLIENT_TIMEOUT_MS,
    ...options,
  });
}

const conversation = () => [
  new SystemMessage(`The owner is ${EMAIL}.`),
  new HumanMessage(`Write to ${EMAIL}`),
];

function checkReceived(path, streamed) {
  const received = stand.received();
  assert.deepEqual(
    received.map((r) => r.path),
    [path],
  );
  const body = received[0].body;
  assert.equal(body.stream ?? false, streamed);
  assert.ok(!JSON.stringify(body).includes(EMAIL), JSON.stringify(body));
  assert.ok(JSON.stringify(body).includes(`Write to ${REDACTED}`), JSON.stringify(body));
  assert.ok(JSON.stringify(body).includes(`The owner is ${REDACTED}.`), JSON.stringify(body));
}

for (const variant of VARIANTS) {
  describe(`langchain ${variant.name}`, () => {
    test('invoke: system and user text redacted upstream; the answer as sent', TEST_TIMEOUT, async () => {
      stand.mark();
      const answer = await chat('flow-echo', variant.options).invoke(conversation());
      checkReceived(variant.path, false);
      assert.equal(answer.text, `echo: Write to ${REDACTED}`);
      assert.deepEqual(
        answer.usage_metadata && [
          answer.usage_metadata.input_tokens,
          answer.usage_metadata.output_tokens,
          answer.usage_metadata.total_tokens,
        ],
        [11, 7, 18],
      );
    });

    test('stream: the text arrives redacted', TEST_TIMEOUT, async () => {
      stand.mark();
      let text = '';
      for await (const chunk of await chat('flow-echo', variant.options).stream(conversation()))
        text += chunk.text;
      checkReceived(variant.path, true);
      assert.equal(text, `echo: Write to ${REDACTED}`);
    });

    test(
      'bindTools: the call arrives with its id and redacted arguments; the result goes back redacted',
      TEST_TIMEOUT,
      async () => {
        const model = chat('flow-tool', variant.options).bindTools([lookupTool]);
        const messages = [new HumanMessage('Who is the user?')];
        stand.mark();
        const first = await model.invoke(messages);
        assert.deepEqual(
          first.tool_calls.map(({ id, name, args }) => ({ id, name, args })),
          [{ id: 'call_lookup_1', name: 'lookup_user', args: { email: REDACTED } }],
        );
        stand.mark();
        const second = await model.invoke([
          ...messages,
          first,
          new ToolMessage({ tool_call_id: 'call_lookup_1', content: `${EMAIL} is user 7` }),
        ]);
        const received = stand.received();
        assert.deepEqual(
          received.map((r) => r.path),
          [variant.path],
        );
        const sent = JSON.stringify(received[0].body);
        assert.ok(!sent.includes(EMAIL), sent);
        assert.ok(sent.includes(`${REDACTED} is user 7`), sent);
        assert.equal(second.text, `done: ${REDACTED} is user 7`);
      },
    );
  });
}
