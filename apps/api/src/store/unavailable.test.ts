import { describe, expect, it } from 'vitest';
import { isNoPrimaryYet, storeUnavailableReason } from './unavailable.ts';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('storeUnavailableReason', () => {
  it.each([
    [
      'a write on a standby',
      withCode('cannot execute INSERT in a read-only transaction', '25006'),
      /read-only/,
    ],
    [
      'a serializable BEGIN on a standby',
      withCode('cannot use serializable mode in a hot standby', '0A000'),
      /read-only/,
    ],
    [
      'the server shutting down',
      withCode('terminating connection due to administrator command', '57P01'),
      /cannot be reached/,
    ],
    [
      'the server crashed',
      withCode('terminating connection because of crash of another server process', '57P02'),
      /cannot be reached/,
    ],
    [
      'the server starting',
      withCode('the database system is starting up', '57P03'),
      /cannot be reached/,
    ],
    [
      'writes that kept colliding',
      withCode(
        'could not serialize access due to read/write dependencies among transactions',
        '40001',
      ),
      /busy/,
    ],
    ['a deadlock', withCode('deadlock detected', '40P01'), /busy/],
    ['a connection exception', withCode('connection failure', '08006'), /cannot be reached/],
    [
      'a refused connection',
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      /cannot be reached/,
    ],
    ['a reset socket', withCode('read ECONNRESET', 'ECONNRESET'), /cannot be reached/],
    [
      'no primary among the hosts',
      withCode('no primary among a: a standby', 'NO_PRIMARY'),
      /cannot be reached/,
    ],
    ['a socket that died', new Error('Connection terminated unexpectedly'), /cannot be reached/],
    ['a query timeout', new Error('Query read timeout'), /cannot be reached/],
    [
      'a connect timeout',
      new Error('timeout exceeded when trying to connect'),
      /cannot be reached/,
    ],
    [
      'every host refused',
      new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')]),
      /cannot be reached/,
    ],
  ])('%s: 503 with a reason', (_, err, reason) => {
    expect(storeUnavailableReason(err)).toMatch(reason);
  });

  it.each([
    ['a syntax error of our own', withCode('syntax error at or near "selec"', '42601')],
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['not an error', 'Connection terminated'],
    ['a mixed aggregate', new AggregateError([withCode('a', 'ECONNREFUSED'), new Error('bug')])],
  ])('%s: not the store being away', (_, err) => {
    expect(storeUnavailableReason(err)).toBeNull();
  });
});

describe('isNoPrimaryYet', () => {
  it.each([
    [
      'a write on a standby',
      withCode('cannot execute INSERT in a read-only transaction', '25006'),
      true,
    ],
    [
      'a serializable BEGIN on a standby',
      withCode('cannot use serializable mode in a hot standby', '0A000'),
      true,
    ],
    ['a server starting up', withCode('the database system is starting up', '57P03'), true],
    [
      'a standby refusal wrapped by the migrator',
      new Error('migration failed', {
        cause: withCode('cannot execute CREATE TABLE in a read-only transaction', '25006'),
      }),
      true,
    ],
    [
      'a refused connection: perhaps a wrong URL',
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      false,
    ],
    [
      'a wrong password',
      withCode('password authentication failed for user "ipfe"', '28P01'),
      false,
    ],
    ['a missing database', withCode('database "ipfe" does not exist', '3D000'), false],
    ['another unsupported feature', withCode('cannot do that', '0A000'), false],
    ['not an error', 'read-only', false],
  ])('%s: %s', (_, err, expected) => {
    expect(isNoPrimaryYet(err)).toBe(expected);
  });
});
