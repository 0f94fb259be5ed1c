/**
 * The tasks extension's id. What clients see of a task on each wire (SEP-2663 on 2026-07-28,
 * SEP-1686 on 2025-11-25) is the wire profiles' (src/protocol/wires/task-shapes.ts).
 */
export { TASKS_EXTENSION } from '../protocol/wires/task-shapes.ts';
