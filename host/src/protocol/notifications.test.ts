import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonRpcNotification, JsonRpcRequest } from './envelope.ts';
import { EmptyParams } from './lifecycle.ts';
import { CancelParams, LogParams, ProgressParams } from './notifications.ts';

const Progress = suite('ProgressParams');

Progress('should accept string and integer request ids and 0..100 percentages', () => {
  assert.ok(ProgressParams.safeParse({ requestId: 'compile-1', kind: 'report', message: 'Type checking', percentage: 60 }).success);
  assert.ok(ProgressParams.safeParse({ requestId: 7, kind: 'begin', percentage: 0 }).success);
  assert.ok(ProgressParams.safeParse({ requestId: 7, kind: 'end', percentage: 100 }).success);
});

Progress('should refuse an out-of-range percentage, unknown kind or fractional id', () => {
  assert.not.ok(ProgressParams.safeParse({ requestId: 7, kind: 'report', percentage: 101 }).success);
  assert.not.ok(ProgressParams.safeParse({ requestId: 7, kind: 'report', percentage: -1 }).success);
  assert.not.ok(ProgressParams.safeParse({ requestId: 7, kind: 'middle' }).success);
  assert.not.ok(ProgressParams.safeParse({ requestId: 7.5, kind: 'end' }).success);
});

Progress.run();

const Cancel = suite('CancelParams');

Cancel('should keep the id type', () => {
  assert.is(CancelParams.parse({ id: 'compile-1' }).id, 'compile-1');
  assert.is(CancelParams.parse({ id: 1 }).id, 1);
  assert.not.ok(CancelParams.safeParse({ id: null }).success);
});

Cancel.run();

const Log = suite('LogParams');

Log('should accept the four levels only', () => {
  for (const level of ['debug', 'info', 'warn', 'error']) assert.ok(LogParams.safeParse({ level, message: 'x' }).success);
  assert.not.ok(LogParams.safeParse({ level: 'trace', message: 'x' }).success);
});

Log.run();

const Envelopes = suite('envelopes');

Envelopes('should tell requests from notifications and refuse bad ids', () => {
  assert.ok(JsonRpcRequest.safeParse({ jsonrpc: '2.0', id: 'a', method: 'morphir.ping' }).success);
  assert.not.ok(JsonRpcRequest.safeParse({ jsonrpc: '2.0', id: 1.5, method: 'morphir.ping' }).success);
  assert.not.ok(JsonRpcRequest.safeParse({ jsonrpc: '1.0', id: 1, method: 'morphir.ping' }).success);
  assert.ok(JsonRpcNotification.safeParse({ jsonrpc: '2.0', method: 'morphir.exit' }).success);
  assert.not.ok(JsonRpcNotification.safeParse({ jsonrpc: '2.0', id: 1, method: 'morphir.exit' }).success);
});

Envelopes('should accept absent or object params for methods without params, not null', () => {
  assert.ok(EmptyParams.safeParse(undefined).success);
  assert.ok(EmptyParams.safeParse({ anything: 1 }).success);
  assert.not.ok(EmptyParams.safeParse(null).success);
});

Envelopes.run();
