/**
 * A capable test client: the capabilities the kit declares (`--client-capabilities
 * sampling,elicitation,roots`) and the canned answers it gives when the server asks
 * (`--client-answers FILE`). Servers register some tools only for clients that declare these
 * (the official everything server does), and a tool that samples, elicits or lists roots can only
 * be judged by a client that answers. On the 2025 wire the answers go back to server-to-client
 * requests; on 2026 they are the `inputResponses` of the retried request (SEP-2322).
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ErrorCode } from '../../base/errors.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { basicObject } from '../schema/values.ts';

export const CLIENT_CAPABILITIES = ['sampling', 'elicitation', 'roots'] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

const answersSchema = z
  .object({
    sampling: z
      .object({
        text: z.string().default('mcp-toolkit test: a canned sampling answer'),
        model: z.string().default('mcp-toolkit-test'),
        stopReason: z.string().default('endTurn'),
      })
      .strict()
      .default({
        text: 'mcp-toolkit test: a canned sampling answer',
        model: 'mcp-toolkit-test',
        stopReason: 'endTurn',
      }),
    elicitation: z
      .object({
        action: z.enum(['accept', 'decline', 'cancel']).default('accept'),
        /** Fields given here win over the values generated from the requested schema. */
        content: z.record(z.string(), z.unknown()).default({}),
      })
      .strict()
      .default({ action: 'accept', content: {} }),
    roots: z
      .array(z.object({ uri: z.string().startsWith('file://'), name: z.string().optional() }).strict())
      .optional(),
  })
  .strict();

/** The canned answers; `roots` defaults to the working folder. */
export type ClientAnswers = z.output<typeof answersSchema>;

/** A malformed `--client-answers` file: the commands report it as a usage mistake (exit 2). */
export class ClientAnswersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientAnswersError';
  }
}

/** Validates answers given as an object (the JSON of `--client-answers`); throws ClientAnswersError. */
export function parseClientAnswers(value: unknown, where = 'client answers'): ClientAnswers {
  const parsed = answersSchema.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ClientAnswersError(
      `${where}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'} (expected { sampling?: { text, model, stopReason }, elicitation?: { action, content }, roots?: [{ uri: "file://...", name }] })`,
    );
  }
  return parsed.data;
}

/** Reads a `--client-answers` JSON file. */
export async function loadClientAnswers(file: string): Promise<ClientAnswers> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ClientAnswersError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ClientAnswersError(`${file} is not JSON: ${(err as Error).message}`);
  }
  return parseClientAnswers(json, file);
}

/** `sampling,elicitation,roots` → the list, refusing names the kit cannot answer for. */
export function parseCapabilityList(text: string): ClientCapability[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(CLIENT_CAPABILITIES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new ClientAnswersError(
      `unknown client capability ${unknown.join(', ')} (expected any of ${CLIENT_CAPABILITIES.join(', ')})`,
    );
  return [...new Set(names)] as ClientCapability[];
}

/** The `capabilities` object of initialize and of the 2026 envelope. */
export function capabilitiesObject(declared: readonly ClientCapability[]): JsonObject {
  const out: JsonObject = {};
  if (declared.includes('sampling')) out.sampling = {};
  if (declared.includes('elicitation')) out.elicitation = { form: {} };
  if (declared.includes('roots')) out.roots = { listChanged: false };
  return out;
}

const METHOD_CAPABILITY: Record<string, ClientCapability> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * The result for a server's request (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`), or undefined when the capability is not declared or the method is not one of them.
 */
export function answerFor(
  method: string,
  params: unknown,
  declared: readonly ClientCapability[],
  answers: ClientAnswers,
): JsonObject | undefined {
  const cap = METHOD_CAPABILITY[method];
  if (cap === undefined || !declared.includes(cap)) return undefined;
  if (cap === 'sampling') {
    const s = answers.sampling;
    return {
      role: 'assistant',
      content: { type: 'text', text: s.text },
      model: s.model,
      stopReason: s.stopReason,
    };
  }
  if (cap === 'roots') {
    const roots = answers.roots ?? [{ uri: pathToFileURL(process.cwd()).href, name: 'working folder' }];
    return { roots: roots.map((r) => ({ ...r })) };
  }
  const e = answers.elicitation;
  if (e.action !== 'accept') return { action: e.action };
  const schema = isObject(params) && isObject(params.requestedSchema) ? params.requestedSchema : undefined;
  // The simplest content the requested schema accepts, with the configured fields on top.
  const generated = schema ? (basicObject(schema, schema) ?? {}) : {};
  return { action: 'accept', content: { ...generated, ...e.content } };
}

/** The default answers (every field at its default). */
export const DEFAULT_ANSWERS: ClientAnswers = parseClientAnswers({});

/**
 * The kit's reply to a request the server sends it: ping answered, sampling, elicitation and
 * roots answered when declared (canned answers), anything else refused with -32601.
 */
export function replyTo(
  request: JsonObject,
  declared: readonly ClientCapability[],
  answers: ClientAnswers,
): JsonObject {
  const method = String(request.method);
  const result = method === 'ping' ? {} : answerFor(method, request.params, declared, answers);
  if (result !== undefined) return { jsonrpc: '2.0', id: request.id, result };
  return {
    jsonrpc: '2.0',
    id: request.id,
    error: {
      code: ErrorCode.MethodNotFound,
      message: `mcp-toolkit test client does not support ${method} (declare it with --client-capabilities)`,
    },
  };
}
