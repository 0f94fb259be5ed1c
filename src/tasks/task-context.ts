/**
 * The context a tool handler gets while it runs as a task: the same `HandlerContext` as a
 * plain call (signal, logger, progress, input rounds), detached from the request that
 * created the task, which has long been answered.
 * - 2026 (SEP-2663): progress and log notifications are not sent for tasks; a progress
 *   message becomes the task's `statusMessage`, which `tasks/get` shows.
 * - 2025 (SEP-1686): the original progressToken stays valid for the task's life, so progress
 *   and log notifications go to the session's stream, tagged with the related-task key;
 *   a progress message also becomes the `statusMessage`.
 */
import type { Logger } from 'pino';
import type { ClientCapabilities } from '../base/spec-types.ts';
import type { Identity } from '../base/types.ts';
import type { OutboundChannel } from '../protocol/hub/channel.ts';
import { RequestContext } from '../protocol/request-context.ts';
import type { Session } from '../protocol/session/store.ts';
import { profileOf } from '../protocol/wires/classify.ts';
import type { TaskRecord } from './types.ts';

export class TaskContext extends RequestContext {
  readonly taskId: string;
  readonly #onStatusMessage: (message: string) => void;

  constructor(init: {
    record: TaskRecord;
    session: Session | undefined;
    identity: Identity | undefined;
    channel: OutboundChannel | undefined;
    logger: Logger;
    onStatusMessage: (message: string) => void;
  }) {
    const { record, session } = init;
    const profile = profileOf(record.wire, record.protocolVersion);
    super(
      Object.freeze({
        method: 'tools/call',
        requestId: record.requestId,
        targetName: record.tool,
        target: undefined,
        targetKnown: true,
        profile,
        wire: record.wire,
        protocolVersion: record.protocolVersion,
        sessionId: session?.id,
        identity: init.identity,
        transport: undefined,
        clientInfo: session?.clientInfo,
        clientCapabilities: record.clientCapabilities as ClientCapabilities,
        // No log frames for a task on 2026 (SEP-2663); on 2025 the session's level applies.
        logLevel: undefined,
        meta: profile.tasks.meta(record.meta),
        args: record.args,
        headers: undefined,
        address: undefined,
        port: undefined,
        httpVersion: undefined,
        http: undefined,
      }),
      {
        session,
        channel: init.channel,
        logger: init.logger.child({ taskId: record.taskId, tool: record.tool }),
      },
    );
    this.taskId = record.taskId;
    this.#onStatusMessage = init.onStatusMessage;
    this.inputResponses = record.answers;
    this.requestState = record.state;
  }

  override async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (message !== undefined && !this.aborted) this.#onStatusMessage(message);
    await super.progress(progress, total, message);
  }
}
