/**
 * The dsh tool-call pipeline. Create a host, register tools and plugins,
 * then hand it each assistant message's tool calls with `host.runStep`.
 *
 * @packageDocumentation
 */
/**
 * zod, re-exported so that tools and plugins build schemas with the very instance core validates
 * with. Its reference is zod's own (https://zod.dev), not repeated here.
 *
 * @hidden
 */
export { z } from 'zod';
export { type AnchorOptions, anchorPath, type SessionAnchors, sessionAnchors } from './anchors.js';
export type { ApprovalAnswer, ApprovalProvider, ApprovalReply, ApprovalRequest } from './approval.js';
export { type AbortFollower, Cancellation, type CancellationOptions } from './cancellation.js';
export { type Catalog, type CatalogEvent, catalogMarkdown, catalogOf } from './catalog.js';
export {
  type ContentMediaType,
  type ContentPart,
  contentMediaTypes,
  contentPartBytes,
  contentPartSchema,
  type FilePart,
  type ImagePart,
  isContentPart,
  isToolContent,
  maxContentPartBytes,
  type TextPart,
  type ToolContent,
  toolContentSchema,
} from './content-parts.js';
export type { Diagnostic, Diagnostics } from './diagnostics.js';
export { DshError, ErrorCode, messageOf, ToolDenied, ToolError } from './errors.js';
export type { EventDoc } from './event-docs.js';
export { outcomeSchema } from './event-types.js';
export type {
  AnySessionEvent,
  ContextPart,
  DroppedEvents,
  EventData,
  EventDataMap,
  EventSink,
  EventType,
  SessionEvent,
} from './events.js';
export type { GateContext, GateData, GateDataMap, GateHandler, GateType, GateVerdict, GateVeto } from './gates.js';
export type { Guard, GuardHandle, GuardInput, GuardVerdict } from './guards.js';
export type {
  Args,
  CallInfo,
  Decision,
  ExecuteContext,
  ExecuteNext,
  ExecuteTap,
  Hooks,
  PostExecuteState,
  PostExecuteTap,
  PostExecuteVerdict,
  PreExecuteState,
  PreExecuteTap,
  PreExecuteUpdate,
  RememberedApproval,
  ResultObserver,
} from './hooks.js';
export { createHost, type Host, type HostEvents, type HostGates, type HostGuards, type HostTools } from './host.js';
export {
  deepFreeze,
  findProtoKey,
  freezeJson,
  type JsonArray,
  type JsonObject,
  type JsonProblem,
  type JsonValue,
  LosslessNumber,
  parseJsonExact,
} from './json.js';
export { type JsonlSink, type JsonlSinkOptions, jsonlSink } from './jsonl-sink.js';
export { type LockedJsonlSink, openJsonlSink } from './locked-jsonl-sink.js';
export type { HostOptions } from './options.js';
export type {
  BlockedOutcome,
  CallIdentity,
  DeniedOutcome,
  DispatchOutcome,
  ErrorOutcome,
  OkOutcome,
  Outcome,
  OutcomeError,
  Stage,
} from './outcome.js';
export { exactJsonText, outcomeText } from './outcome-text.js';
export { definePlugin, type Plugin, type PluginDependency } from './plugin.js';
export { processExists } from './process-exists.js';
export { exactInteger, jsonSchemaOf, type ReservedToolName, reservedToolNames, type ToolSchema } from './registry.js';
export { type RequireApprovalOptions, requireApproval } from './require-approval.js';
export {
  interruptedCallMessage,
  type ResumedCall,
  type ResumedSession,
  type ResumeOptions,
  type ResumeSource,
  resumeSession,
  type SessionCall,
} from './resume-session.js';
export type { ParentCall } from './runtime.js';
export {
  createSandboxPolicy,
  type HostSandboxPolicy,
  type MergedSandboxPolicy,
  type SandboxNetworkPart,
  type SandboxNetworkPolicy,
  type SandboxPolicyPart,
} from './sandbox-policy.js';
export { acquireSessionLock, type SessionLock } from './session-lock.js';
export { type LoadedSessionLog, loadSessionLog } from './session-log.js';
export type { CallResult, ContextMessage, Step, StepCall, StepOptions, StepResult } from './step.js';
export type { HookPoint, Tap, TapList, TapOptions } from './taps.js';
export {
  type AnyToolDefinition,
  type Card,
  type Dialect,
  defineTool,
  type ExternalName,
  type SubCall,
  type ToolContext,
  type ToolDefinition,
  type ToolPresenter,
} from './tool.js';
export { type ToolNameMatcher, toolNameMatcher } from './tool-name-matcher.js';
export type { UiAdapter } from './ui.js';
