// The openai SDK (package.json's version) through `cmfpipe serve`: Chat Completions (plain,
// streamed, a tool loop, parallel calls, json_schema), Responses (plain, streamed, a tool loop,
// a denied call in a stream), models and embeddings. Each checks what the upstream received
// (e-mail addresses redacted) and what the client got.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';

import { CLIENT_TIMEOUT_MS, collect, EMAIL, onlyRecord, REDACTED, Stand, TEST_TIMEOUT } from './harness.mjs';

// Redacted arguments are written anew, as compact JSON; arguments with nothing to redact pass
// as they came.
const REDACTED_ARGS = `{"email":"${REDACTED}"}`;

let stand;
let client;
before(async () => {
  stand = await Stand.start();
  client = new OpenAI({
    baseURL: stand.baseURL,
    apiKey: 'sk-clients',
    maxRetries: 0,
    timeout: CLIENT_TIMEOUT_MS,
  });
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
const cityTool = (name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
});

// The provider's headers (flow_upstream.py's OPENAI_HEADERS) reach the client, its request id
// the SDK's request_id; cmfpipe's own id travels as x-cmfpipe-request-id, to the upstream too.
function checkProviderHeaders(sent, response, requestId) {
  assert.equal(requestId, 'req_flow_1');
  assert.equal(response.headers.get('x-request-id'), 'req_flow_1');
  assert.equal(response.headers.get('openai-processing-ms'), '7');
  assert.equal(response.headers.get('openai-version'), '2020-10-01');
  assert.equal(response.headers.get('x-ratelimit-remaining-requests'), '99');
  assert.match(response.headers.get('x-cmfpipe-request-id') ?? '', /./);
  assert.equal(sent.headers['x-cmfpipe-request-id'], response.headers.get('x-cmfpipe-request-id'));
}

describe('openai chat completions', () => {
  test(
    'plain: system and user text reach the upstream redacted; the answer arrives field for field',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const {
        data: answer,
        response,
        request_id: requestId,
      } = await client.chat.completions
        .create({
          model: 'flow-echo',
          messages: [
            { role: 'system', content: `The owner is ${EMAIL}.` },
            { role: 'user', content: `Write to ${EMAIL}` },
          ],
          temperature: 0.2,
        })
        .withResponse();
      const sent = onlyRecord(stand, assert);
      checkProviderHeaders(sent, response, requestId);
      assert.equal(sent.path, '/v1/chat/completions');
      assert.deepEqual(sent.body, {
        model: 'flow-echo',
        messages: [
          { role: 'system', content: `The owner is ${REDACTED}.` },
          { role: 'user', content: `Write to ${REDACTED}` },
        ],
        temperature: 0.2,
      });
      assert.deepEqual(answer, {
        id: 'chatcmpl-flow',
        object: 'chat.completion',
        created: 1700000000,
        model: 'flow-echo',
        system_fingerprint: 'fp_flow',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `echo: Write to ${REDACTED}`, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      });
    },
  );

  test(
    'stream: the text arrives redacted, never an address in pieces; ids, model and usage as sent',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const chunks = await collect(
        await client.chat.completions.create({
          model: 'pii',
          stream: true,
          messages: [{ role: 'user', content: `Mail ${EMAIL} please` }],
        }),
      );
      const sent = onlyRecord(stand, assert);
      assert.deepEqual(sent.body.messages, [{ role: 'user', content: `Mail ${REDACTED} please` }]);
      assert.equal(sent.body.stream, true);
      const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
      assert.equal(text, `Mail ${REDACTED} please`);
      for (const c of chunks)
        assert.ok(!(c.choices[0]?.delta?.content ?? '').includes('@'), JSON.stringify(c));
      assert.ok(
        chunks.every(
          (c) => c.id === 'chatcmpl-1' && c.model === 'pii' && c.object === 'chat.completion.chunk',
        ),
      );
      assert.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
    },
  );

  test(
    'stream with a tool call: its id, name and (redacted) arguments arrive whole; headers as the provider sent them',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const {
        data: stream,
        response,
        request_id: requestId,
      } = await client.chat.completions
        .create({
          model: 'flow-tool',
          messages: [{ role: 'user', content: 'Who is the user?' }],
          tools: [lookupTool],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      const chunks = await collect(stream);
      checkProviderHeaders(onlyRecord(stand, assert), response, requestId);
      assert.ok(chunks.every((c) => c.id === 'chatcmpl-flow' && c.model === 'flow-tool'));
      const calls = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
      assert.deepEqual(
        calls
          .filter((call) => call.id)
          .map(({ index, id, type, function: f }) => ({ index, id, type, name: f.name })),
        [{ index: 0, id: 'call_lookup_1', type: 'function', name: 'lookup_user' }],
      );
      assert.equal(calls.map((call) => call.function?.arguments ?? '').join(''), REDACTED_ARGS);
      assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls');
      assert.deepEqual(chunks.at(-1).usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    },
  );

  test(
    "stream with logprobs: each entry travels with its text, none ahead of it; the total is the upstream's",
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const chunks = await collect(
        await client.chat.completions.create({
          model: 'flow-logprobs',
          stream: true,
          logprobs: true,
          messages: [{ role: 'user', content: 'Say it' }],
        }),
      );
      onlyRecord(stand, assert);
      // flow_upstream.py sends 17 tokens, one entry a chunk; five of them spell ada@example.com.
      let text = '';
      const tokens = [];
      const states = [];
      for (const chunk of chunks) {
        const choice = chunk.choices[0];
        if (!choice) continue;
        text += choice.delta?.content ?? '';
        tokens.push(...(choice.logprobs?.content ?? []).map((entry) => entry.token));
        states.push({ text, entries: tokens.length, tokensText: tokens.join('') });
      }
      assert.equal(tokens.length, 17);
      assert.equal(text, `The answer is plain, write to ${REDACTED} or not at all.`);
      assert.equal(tokens.join(''), text);
      assert.ok(!JSON.stringify(chunks).includes('example'), 'no piece of the address, in text or logprobs');
      for (const state of states) {
        // The entries never run ahead of the text, and a token whose text went out went with its entry.
        assert.ok(state.text.startsWith(state.tokensText), JSON.stringify(state));
        const rest = state.text.slice(state.tokensText.length);
        const next = tokens[state.entries] ?? '';
        assert.ok(
          rest === '' || (rest.length < next.length && next.startsWith(rest)),
          JSON.stringify({ ...state, next }),
        );
      }
    },
  );

  test(
    'tools: a two-turn loop; arguments and tool results reach the upstream redacted',
    TEST_TIMEOUT,
    async () => {
      const messages = [{ role: 'user', content: 'Who is the user?' }];
      stand.mark();
      const first = await client.chat.completions.create({
        model: 'flow-tool',
        messages,
        tools: [lookupTool],
      });
      assert.deepEqual(onlyRecord(stand, assert).body.tools, [lookupTool]);
      assert.equal(first.choices[0].finish_reason, 'tool_calls');
      assert.deepEqual(first.choices[0].message.tool_calls, [
        {
          id: 'call_lookup_1',
          type: 'function',
          function: { name: 'lookup_user', arguments: REDACTED_ARGS },
        },
      ]);
      // The client's own history holds the address in the call and in the tool's result.
      const call = {
        id: 'call_lookup_1',
        type: 'function',
        function: { name: 'lookup_user', arguments: `{"email": "${EMAIL}"}` },
      };
      stand.mark();
      const second = await client.chat.completions.create({
        model: 'flow-tool',
        tools: [lookupTool],
        messages: [
          ...messages,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_lookup_1', content: `${EMAIL} is user 7` },
        ],
      });
      const sent = onlyRecord(stand, assert);
      assert.deepEqual(sent.body.messages.slice(1), [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ ...call, function: { name: 'lookup_user', arguments: REDACTED_ARGS } }],
        },
        { role: 'tool', tool_call_id: 'call_lookup_1', content: `${REDACTED} is user 7` },
      ]);
      assert.equal(second.choices[0].message.content, `done: ${REDACTED} is user 7`);
      assert.equal(second.choices[0].finish_reason, 'stop');
    },
  );

  for (const streamed of [false, true]) {
    test(
      `parallel tools${streamed ? ', streamed' : ''}: both calls arrive with their ids; both results go back`,
      TEST_TIMEOUT,
      async () => {
        const tools = [cityTool('get_weather'), cityTool('get_time')];
        const messages = [{ role: 'user', content: 'Weather and time in Paris?' }];
        stand.mark();
        const first = streamed
          ? await client.chat.completions
              .stream({ model: 'flow-parallel', messages, tools, parallel_tool_calls: true })
              .finalChatCompletion()
          : await client.chat.completions.create({
              model: 'flow-parallel',
              messages,
              tools,
              parallel_tool_calls: true,
            });
        assert.equal(onlyRecord(stand, assert).body.parallel_tool_calls, true);
        const calls = first.choices[0].message.tool_calls.map(({ id, type, function: f }) => ({
          id,
          type,
          name: f.name,
          arguments: f.arguments,
        }));
        assert.deepEqual(calls, [
          { id: 'call_weather_1', type: 'function', name: 'get_weather', arguments: '{"city": "Paris"}' },
          { id: 'call_time_1', type: 'function', name: 'get_time', arguments: '{"city": "Paris"}' },
        ]);
        stand.mark();
        const second = await client.chat.completions.create({
          model: 'flow-parallel',
          tools,
          messages: [
            ...messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: first.choices[0].message.tool_calls.map(({ id, type, function: f }) => ({
                id,
                type,
                function: { name: f.name, arguments: f.arguments },
              })),
            },
            { role: 'tool', tool_call_id: 'call_weather_1', content: 'sunny' },
            { role: 'tool', tool_call_id: 'call_time_1', content: `noon, ask ${EMAIL}` },
          ],
        });
        const sent = onlyRecord(stand, assert);
        assert.deepEqual(sent.body.messages.slice(2), [
          { role: 'tool', tool_call_id: 'call_weather_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call_time_1', content: `noon, ask ${REDACTED}` },
        ]);
        assert.equal(second.choices[0].message.content, `done: sunny | noon, ask ${REDACTED}`);
      },
    );
  }

  test(
    'response_format json_schema: passes as sent; the JSON answer parses, its address redacted',
    TEST_TIMEOUT,
    async () => {
      const responseFormat = {
        type: 'json_schema',
        json_schema: {
          name: 'place',
          strict: true,
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['city', 'contact'],
            properties: { city: { type: 'string' }, contact: { type: 'string' } },
          },
        },
      };
      stand.mark();
      const answer = await client.chat.completions.parse({
        model: 'flow-json',
        messages: [{ role: 'user', content: 'Where?' }],
        response_format: responseFormat,
      });
      assert.deepEqual(onlyRecord(stand, assert).body.response_format, responseFormat);
      assert.deepEqual(answer.choices[0].message.parsed, { city: 'Paris', contact: REDACTED });
    },
  );
});

describe('openai responses', () => {
  test(
    'plain: instructions and input reach the upstream redacted; the response arrives field for field',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const {
        data: answer,
        response,
        request_id: requestId,
      } = await client.responses
        .create({
          model: 'flow-echo',
          instructions: `The owner is ${EMAIL}.`,
          input: `Write to ${EMAIL}`,
          store: false,
        })
        .withResponse();
      const sent = onlyRecord(stand, assert);
      checkProviderHeaders(sent, response, requestId);
      assert.equal(sent.path, '/v1/responses');
      assert.equal(sent.body.instructions, `The owner is ${REDACTED}.`);
      assert.ok(
        JSON.stringify(sent.body.input).includes(`Write to ${REDACTED}`),
        JSON.stringify(sent.body.input),
      );
      assert.ok(!JSON.stringify(sent.body).includes(EMAIL));
      assert.equal(sent.body.store, false);
      // output_text is the SDK's own addition; the rest is the upstream's response, field for field.
      assert.equal(answer.output_text, `echo: Write to ${REDACTED}`);
      const { output_text: outputText, ...fields } = answer;
      assert.deepEqual(fields, {
        id: 'resp_flow',
        object: 'response',
        created_at: 1700000000,
        status: 'completed',
        error: null,
        incomplete_details: null,
        instructions: `The owner is ${REDACTED}.`,
        model: 'flow-echo',
        output: [
          {
            id: 'msg_flow',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [
              { type: 'output_text', text: `echo: Write to ${REDACTED}`, annotations: [], logprobs: [] },
            ],
          },
        ],
        parallel_tool_calls: true,
        previous_response_id: null,
        store: false,
        temperature: 1.0,
        text: { format: { type: 'text' } },
        tool_choice: 'auto',
        tools: [],
        top_p: 1.0,
        truncation: 'disabled',
        usage: {
          input_tokens: 11,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 7,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 18,
        },
        metadata: {},
      });
    },
  );

  test(
    'stream: the events arrive in order, text redacted, the completed response whole',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const events = await collect(
        await client.responses.create({
          model: 'flow-echo',
          input: [{ role: 'user', content: `Write to ${EMAIL}` }],
          stream: true,
        }),
      );
      const sent = onlyRecord(stand, assert);
      assert.ok(!JSON.stringify(sent.body).includes(EMAIL), JSON.stringify(sent.body));
      assert.equal(sent.body.stream, true);
      const types = events.map((e) => e.type);
      assert.equal(types[0], 'response.created');
      assert.equal(types.at(-1), 'response.completed');
      const text = events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join('');
      assert.equal(text, `echo: Write to ${REDACTED}`);
      assert.equal(
        events.find((e) => e.type === 'response.output_text.done').text,
        `echo: Write to ${REDACTED}`,
      );
      const completed = events.at(-1).response;
      assert.equal(completed.id, 'resp_flow');
      assert.deepEqual(completed.output[0].content[0].text, `echo: Write to ${REDACTED}`);
      assert.ok(!JSON.stringify(events).includes(EMAIL));
    },
  );

  test(
    'tools: a two-turn loop; the call arrives whole, arguments and output go back redacted',
    TEST_TIMEOUT,
    async () => {
      const tools = [
        { type: 'function', name: 'lookup_user', strict: false, parameters: lookupTool.function.parameters },
      ];
      stand.mark();
      const first = await client.responses.create({ model: 'flow-tool', input: 'Who is the user?', tools });
      assert.deepEqual(onlyRecord(stand, assert).body.tools, tools);
      assert.deepEqual(first.output, [
        {
          id: 'fc_lookup_1',
          type: 'function_call',
          status: 'completed',
          call_id: 'call_lookup_1',
          name: 'lookup_user',
          arguments: REDACTED_ARGS,
        },
      ]);
      stand.mark();
      const second = await client.responses.create({
        model: 'flow-tool',
        tools,
        input: [
          { role: 'user', content: 'Who is the user?' },
          {
            type: 'function_call',
            call_id: 'call_lookup_1',
            name: 'lookup_user',
            arguments: `{"email": "${EMAIL}"}`,
          },
          { type: 'function_call_output', call_id: 'call_lookup_1', output: `${EMAIL} is user 7` },
        ],
      });
      const sent = onlyRecord(stand, assert);
      assert.deepEqual(sent.body.input.slice(1), [
        { type: 'function_call', call_id: 'call_lookup_1', name: 'lookup_user', arguments: REDACTED_ARGS },
        { type: 'function_call_output', call_id: 'call_lookup_1', output: `${REDACTED} is user 7` },
      ]);
      assert.equal(second.output_text, `done: ${REDACTED} is user 7`);
    },
  );

  test('stream tools: the function call arrives in its events, whole, redacted', TEST_TIMEOUT, async () => {
    const tools = [
      { type: 'function', name: 'lookup_user', strict: false, parameters: lookupTool.function.parameters },
    ];
    stand.mark();
    const events = await collect(
      await client.responses.create({ model: 'flow-tool', input: 'Who?', tools, stream: true }),
    );
    onlyRecord(stand, assert);
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    assert.deepEqual(done, [
      {
        id: 'fc_lookup_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_lookup_1',
        name: 'lookup_user',
        arguments: REDACTED_ARGS,
      },
    ]);
    const args = events
      .filter((e) => e.type === 'response.function_call_arguments.delta')
      .map((e) => e.delta)
      .join('');
    assert.equal(args, REDACTED_ARGS);
    assert.equal(events.at(-1).type, 'response.completed');
  });

  test(
    'a call tool_guard denies after text in a streamed answer never reaches the client; the turn ends as a content filter',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const events = await collect(
        await client.responses.create({ model: 'flow-delete', input: 'Delete user 7', stream: true }),
      );
      onlyRecord(stand, assert);
      assert.ok(!JSON.stringify(events).includes('delete_user'), JSON.stringify(events));
      assert.ok(!events.some((e) => e.type.startsWith('response.function_call')));
      const text = events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join('');
      assert.equal(text, 'Deleting now.');
      const last = events.at(-1);
      assert.equal(last.type, 'response.incomplete', JSON.stringify(last));
      assert.equal(last.response.id, 'resp_flow');
      assert.equal(last.response.status, 'incomplete');
      assert.deepEqual(last.response.incomplete_details, { reason: 'content_filter' });
      assert.ok(!last.response.output.some((item) => item.type === 'function_call'));
    },
  );

  test(
    'a call tool_guard denies before any byte of a streamed answer went out: a 403 as for a non-streamed stop',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const refused = await client.responses
        .create({ model: 'flow-delete-only', input: 'Delete user 7', stream: true })
        .then(collect)
        .then(
          (events) => ({ events }),
          (error) => error,
        );
      onlyRecord(stand, assert);
      assert.equal(refused.status, 403, JSON.stringify(refused.events ?? String(refused)));
      assert.equal(refused.error.code, 'stopped');
      assert.match(refused.error.message, /guard_tools/);
    },
  );
});

// The same SDK straight at the upstream: what the client must get through cmfpipe.
const direct = () =>
  new OpenAI({
    baseURL: `http://127.0.0.1:${stand.upstream.port}/v1`,
    apiKey: 'sk-clients',
    maxRetries: 0,
    timeout: CLIENT_TIMEOUT_MS,
  });

describe('openai responses: sealed reasoning', () => {
  // The mock's model "reasoning": a reasoning item with encrypted_content and a summary that
  // names an address. Sealed by the provider, it passes as the provider wrote it, both ways.
  for (const streamed of [false, true]) {
    test(
      `reasoning with encrypted_content${streamed ? ', streamed' : ''}: arrives and goes back upstream unchanged`,
      TEST_TIMEOUT,
      async () => {
        const request = {
          model: 'reasoning',
          input: `Write to ${EMAIL}`,
          include: ['reasoning.encrypted_content'],
          store: false,
        };
        const expected = await direct().responses.create({ ...request, input: `Write to ${REDACTED}` });
        const sealed = expected.output.find((item) => item.type === 'reasoning');
        assert.ok(sealed?.encrypted_content, JSON.stringify(expected.output));
        stand.mark();
        let first;
        if (streamed) {
          const events = await collect(await client.responses.create({ ...request, stream: true }));
          first = events.at(-1).response;
          assert.deepEqual(
            events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning').item,
            sealed,
          );
        } else {
          first = await client.responses.create(request);
        }
        assert.ok(!JSON.stringify(onlyRecord(stand, assert).body).includes(EMAIL));
        assert.deepEqual(
          first.output.find((item) => item.type === 'reasoning'),
          sealed,
        );
        assert.deepEqual(
          first.output.find((item) => item.type === 'message'),
          expected.output.find((item) => item.type === 'message'),
        );
        stand.mark();
        await client.responses.create({
          model: 'reasoning',
          store: false,
          previous_response_id: 'resp_prev_1',
          input: [{ role: 'user', content: `Write to ${EMAIL}` }, sealed, { role: 'user', content: 'Again' }],
        });
        const sent = onlyRecord(stand, assert).body;
        assert.deepEqual(sent.input[1], sealed);
        assert.equal(sent.previous_response_id, 'resp_prev_1');
        assert.deepEqual(sent.input[0], { role: 'user', content: `Write to ${REDACTED}` });
      },
    );
  }
});

describe('openai models and embeddings', () => {
  test('models.list and models.retrieve: as the upstream answers them', TEST_TIMEOUT, async () => {
    const expectedList = [];
    for await (const model of direct().models.list()) expectedList.push(model);
    assert.ok(expectedList.length > 0);
    const expectedOne = await direct().models.retrieve(expectedList[0].id);
    stand.mark();
    const listed = [];
    for await (const model of client.models.list()) listed.push(model);
    const one = await client.models.retrieve(expectedList[0].id);
    assert.deepEqual(listed, expectedList);
    assert.deepEqual(one, expectedOne);
    const received = stand.received();
    assert.deepEqual(
      received.map((r) => r.path),
      ['/v1/models', `/v1/models/${expectedList[0].id}`],
    );
    assert.equal(received[0].headers.authorization, 'Bearer sk-clients');
  });

  test(
    'embeddings.create: text input reaches the upstream redacted; token arrays as they are',
    TEST_TIMEOUT,
    async () => {
      stand.mark();
      const answer = await client.embeddings.create({
        model: 'text-embedding-3-small',
        input: [`Contact ${EMAIL}`, 'plain'],
      });
      const sent = onlyRecord(stand, assert);
      assert.equal(sent.path, '/v1/embeddings');
      assert.deepEqual(sent.body.input, [`Contact ${REDACTED}`, 'plain']);
      assert.deepEqual(
        answer,
        await direct().embeddings.create({
          model: 'text-embedding-3-small',
          input: [`Contact ${REDACTED}`, 'plain'],
        }),
      );
      stand.mark();
      await client.embeddings.create({ model: 'text-embedding-3-small', input: [[101, 202, 303]] });
      assert.deepEqual(onlyRecord(stand, assert).body.input, [[101, 202, 303]]);
    },
  );
});
