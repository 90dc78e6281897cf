// @anthropic-ai/sdk (package.json's version) through `cmfpipe serve`: messages plain, streamed,
// a tool loop, signed thinking in a tool loop (streamed and not), countTokens and models.list.
// Each checks what the upstream received (e-mail addresses redacted, signed thinking as signed)
// and what the client got.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';

import { CLIENT_TIMEOUT_MS, EMAIL, onlyRecord, REDACTED, Stand, TEST_TIMEOUT } from './harness.mjs';

// As tests/clients/flow_upstream.py signs it.
const THINKING = `The user ${EMAIL} asks for the weather: call get_weather.`;
const SIGNATURE = 'sig-flow-thinking-1';

let stand;
let client;
before(async () => {
  stand = await Stand.start();
  client = new Anthropic({
    baseURL: stand.origin,
    apiKey: 'sk-ant-clients',
    maxRetries: 0,
    timeout: CLIENT_TIMEOUT_MS,
  });
});
after(() => stand?.stop());

const lookupTool = {
  name: 'lookup_user',
  description: 'Finds a user by e-mail address',
  input_schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
};
const weatherTool = {
  name: 'get_weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('anthropic messages', () => {
  test(
    'plain: system and user text reach the upstream redacted; the message arrives field for field',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const {
        data: message,
        response,
        request_id: requestId,
      } = await client.messages
        .create({
          model: 'flow-echo',
          max_tokens: 64,
          system: `The owner is ${EMAIL}.`,
          messages: [{ role: 'user', content: `Write to ${EMAIL}` }],
        })
        .withResponse();
      const sent = onlyRecord(stand, assert);
      // The provider's headers (flow_upstream.py's): its request id is the SDK's request_id;
      // cmfpipe's own id travels as x-cmfpipe-request-id.
      assert.equal(requestId, 'req_flow_ant_1');
      assert.equal(response.headers.get('request-id'), 'req_flow_ant_1');
      assert.equal(response.headers.get('anthropic-ratelimit-requests-remaining'), '99');
      assert.match(response.headers.get('x-cmfpipe-request-id') ?? '', /./);
      assert.equal(sent.headers['x-cmfpipe-request-id'], response.headers.get('x-cmfpipe-request-id'));
      assert.equal(sent.path, '/v1/messages');
      assert.equal(sent.headers.authorization, 'Bearer sk-ant-clients');
      assert.ok(sent.headers['anthropic-version']);
      assert.deepEqual(sent.body, {
        model: 'flow-echo',
        max_tokens: 64,
        system: `The owner is ${REDACTED}.`,
        messages: [{ role: 'user', content: `Write to ${REDACTED}` }],
      });
      assert.deepEqual(message, {
        id: 'msg_flow',
        type: 'message',
        role: 'assistant',
        model: 'flow-echo',
        content: [{ type: 'text', text: `echo: Write to ${REDACTED}` }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 11, output_tokens: 7 },
      });
    },
  );

  test(
    'stream: the text arrives redacted, never an address in pieces; the final message whole',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const stream = client.messages.stream({
        model: 'pii',
        max_tokens: 64,
        messages: [{ role: 'user', content: [{ type: 'text', text: `Mail ${EMAIL}` }] }],
      });
      const deltas = [];
      stream.on('text', (delta) => deltas.push(delta));
      const final = await stream.finalMessage();
      const sent = onlyRecord(stand, assert);
      assert.deepEqual(sent.body.messages, [
        { role: 'user', content: [{ type: 'text', text: `Mail ${REDACTED}` }] },
      ]);
      assert.equal(deltas.join(''), `Mail ${REDACTED} please`);
      assert.ok(
        deltas.every((d) => !d.includes('@')),
        JSON.stringify(deltas),
      );
      // The SDK's own additions to what it accumulated.
      assert.equal(final.parsed_output, null);
      delete final.parsed_output;
      delete final.stop_details;
      assert.deepEqual(final, {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'pii',
        content: [{ type: 'text', text: `Mail ${REDACTED} please` }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 3 },
      });
    },
  );

  for (const streamed of [false, true]) {
    test(
      `tools${streamed ? ', streamed' : ''}: a two-turn loop; input and tool result reach the upstream redacted`,
      TEST_TIMEOUT,
      async () => {
        const request = {
          model: 'flow-tool',
          max_tokens: 64,
          tools: [lookupTool],
          messages: [{ role: 'user', content: 'Who is the user?' }],
        };
        stand.mark();
        const first = streamed
          ? await client.messages.stream(request).finalMessage()
          : await client.messages.create(request);
        assert.deepEqual(onlyRecord(stand, assert).body.tools, [lookupTool]);
        assert.equal(first.stop_reason, 'tool_use');
        assert.deepEqual(first.content, [
          { type: 'tool_use', id: 'toolu_lookup_1', name: 'lookup_user', input: { email: REDACTED } },
        ]);
        // The client's own history holds the address in the call and in the tool's result.
        stand.mark();
        const second = await client.messages.create({
          ...request,
          messages: [
            ...request.messages,
            {
              role: 'assistant',
              content: [
                { type: 'tool_use', id: 'toolu_lookup_1', name: 'lookup_user', input: { email: EMAIL } },
              ],
            },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'toolu_lookup_1', content: `${EMAIL} is user 7` },
              ],
            },
          ],
        });
        const sent = onlyRecord(stand, assert);
        assert.deepEqual(sent.body.messages.slice(1), [
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_lookup_1', name: 'lookup_user', input: { email: REDACTED } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_lookup_1', content: `${REDACTED} is user 7` },
            ],
          },
        ]);
        assert.deepEqual(second.content, [{ type: 'text', text: `done: ${REDACTED} is user 7` }]);
      },
    );
  }

  for (const streamed of [false, true]) {
    test(
      `thinking with signature${streamed ? ', streamed' : ''}: the signed block arrives and goes back upstream unchanged`,
      TEST_TIMEOUT,
      async () => {
        const request = {
          model: 'flow-thinking',
          max_tokens: 2048,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          tools: [weatherTool],
          messages: [{ role: 'user', content: `Weather for ${EMAIL}?` }],
        };
        stand.mark();
        const first = streamed
          ? await client.messages.stream(request).finalMessage()
          : await client.messages.create(request);
        const sent = onlyRecord(stand, assert);
        assert.deepEqual(sent.body.messages, [{ role: 'user', content: `Weather for ${REDACTED}?` }]);
        assert.deepEqual(sent.body.thinking, request.thinking);
        // Signed by the provider: no processor may change it, the address in it included.
        assert.deepEqual(first.content, [
          { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
          { type: 'tool_use', id: 'toolu_weather_1', name: 'get_weather', input: { city: 'Paris' } },
        ]);
        stand.mark();
        const second = await client.messages.create({
          ...request,
          messages: [
            ...request.messages,
            { role: 'assistant', content: first.content },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'toolu_weather_1', content: `sunny, says ${EMAIL}` },
              ],
            },
          ],
        });
        const back = onlyRecord(stand, assert);
        assert.deepEqual(back.body.messages.slice(1), [
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
              { type: 'tool_use', id: 'toolu_weather_1', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_weather_1', content: `sunny, says ${REDACTED}` },
            ],
          },
        ]);
        assert.deepEqual(second.content, [{ type: 'text', text: `done: sunny, says ${REDACTED}` }]);
      },
    );
  }
});

describe('anthropic stops', () => {
  test(
    'a call tool_guard denies after text in a stream never reaches the client; the turn ends as a refusal',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const events = [];
      const stream = client.messages.stream({
        model: 'flow-delete',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Delete user 7' }],
      });
      stream.on('streamEvent', (event) => events.push(event));
      const final = await stream.finalMessage();
      onlyRecord(stand, assert);
      assert.ok(!JSON.stringify(events).includes('delete_user'), JSON.stringify(events));
      assert.equal(final.stop_reason, 'refusal');
      assert.deepEqual(final.content, [{ type: 'text', text: 'Deleting now.' }]);
    },
  );

  test(
    'a call tool_guard denies before any byte of a stream went out: a 403 in the Anthropic error shape',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const refused = await client.messages
        .stream({
          model: 'flow-delete-only',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'Delete user 7' }],
        })
        .finalMessage()
        .then(
          (message) => ({ message }),
          (error) => error,
        );
      onlyRecord(stand, assert);
      assert.equal(refused.status, 403, JSON.stringify(refused.message ?? String(refused)));
      assert.equal(refused.error.type, 'error');
      assert.match(refused.error.error.message, /guard_tools/);
    },
  );
});

describe('anthropic countTokens and models', () => {
  // The same SDK straight at the upstream: what the client must get through cmfpipe.
  const direct = () =>
    new Anthropic({
      baseURL: `http://127.0.0.1:${stand.upstream.port}`,
      apiKey: 'sk-ant-clients',
      maxRetries: 0,
      timeout: CLIENT_TIMEOUT_MS,
    });

  test('countTokens: the messages are counted as they would be sent, redacted', TEST_TIMEOUT, async () => {
    const request = {
      model: 'claude-flow',
      system: `Owner ${EMAIL}`,
      messages: [{ role: 'user', content: `Write to ${EMAIL}` }],
    };
    stand.mark();
    const counted = await client.messages.countTokens(request);
    const sent = onlyRecord(stand, assert);
    assert.equal(sent.path, '/v1/messages/count_tokens');
    const redacted = {
      model: 'claude-flow',
      system: `Owner ${REDACTED}`,
      messages: [{ role: 'user', content: `Write to ${REDACTED}` }],
    };
    assert.deepEqual(sent.body, redacted);
    assert.deepEqual(counted, await direct().messages.countTokens(redacted));
  });

  test('models.list and models.retrieve: as the upstream answers them', TEST_TIMEOUT, async () => {
    const expected = [];
    for await (const model of direct().models.list()) expected.push(model);
    assert.ok(expected.length > 0);
    const expectedOne = await direct().models.retrieve(expected[0].id);
    stand.mark();
    const listed = [];
    for await (const model of client.models.list()) listed.push(model);
    assert.deepEqual(listed, expected);
    assert.deepEqual(await client.models.retrieve(expected[0].id), expectedOne);
    const received = stand.received();
    assert.deepEqual(
      received.map((r) => r.path.split('?')[0]),
      ['/v1/models', `/v1/models/${expected[0].id}`],
    );
    assert.equal(received[0].headers.authorization, 'Bearer sk-ant-clients');
  });
});
