import { CliError } from './errors.js';

export interface JsonReply {
  ok: boolean;
  status: number;
  body: Record<string, unknown> & { error?: { code?: string; message?: string } };
}

/** POST a signed statement to the service at `base` + `path`; a service that does not answer is a CliError. */
export async function postJson(base: string, path: string, body: unknown): Promise<JsonReply> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new CliError(
      `${base} did not answer (${(err as Error).message}); try again later`,
      'ERR_UNAVAILABLE',
    );
  }
  const parsed = (await res.json().catch(() => ({}))) as JsonReply['body'];
  return { ok: res.ok, status: res.status, body: parsed };
}

/** `refused: 409 CODE: message`, as the service said it. */
export function refusal(reply: JsonReply): string {
  return `refused: ${reply.status} ${reply.body.error?.code ?? ''}: ${reply.body.error?.message ?? ''}`;
}
