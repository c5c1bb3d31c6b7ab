// Option checks of the DBOS binding that reach no database: they run with or without PostgreSQL.
import { describe, expect, it } from 'vitest';
import { DurableError, DurableErrorCode } from '../errors.js';
import { createSessionClient } from './client.js';
import { launchDbosWorker } from './worker.js';

const definition = { name: 'unused', queueName: 'unused', answerQueueName: 'unused.answers' };

describe('systemDatabaseUrl', () => {
  it.each(['not a url', 'http://127.0.0.1:5432/dsh', '', 42])(
    'refuses %j with INVALID_OPTIONS naming the option, in a client',
    async (url) => {
      const error = await createSessionClient({ systemDatabaseUrl: url as string }).catch((e: unknown) => e);
      expect(DurableError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: DurableErrorCode.INVALID_OPTIONS, message: expect.stringContaining('systemDatabaseUrl') });
    },
  );

  it.each(['not a url', 'mysql://dsh@127.0.0.1/dsh'])('refuses %j with INVALID_OPTIONS naming the option, in a worker', async (url) => {
    const error = await launchDbosWorker({ systemDatabaseUrl: url, sessions: [definition] }).catch((e: unknown) => e);
    expect(DurableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: DurableErrorCode.INVALID_OPTIONS, message: expect.stringContaining('systemDatabaseUrl') });
  });

  it('does not echo the URL, which may hold a password', async () => {
    const error = await createSessionClient({ systemDatabaseUrl: 'mysql://dsh:s3cret@db/dsh' }).catch((e: unknown) => e);
    expect((error as Error).message).not.toContain('s3cret');
  });
});
