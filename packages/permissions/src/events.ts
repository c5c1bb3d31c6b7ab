import { z } from '@deepseek-ai/dsh-core';
import type { DecidedBy, PermissionMode } from './decide.js';
import type { Grant } from './grants.js';
import type { PermissionProblem } from './settings.js';

/** `permissions/decision`: what the rules and mode decided for a call, and why. */
export interface DecisionEventData {
  /** The dsh tool name. */
  readonly tool: string;
  readonly decision: 'allow' | 'deny' | 'ask';
  readonly mode: PermissionMode;
  readonly reason: string;
  readonly by: readonly DecidedBy[];
  readonly uncovered?: readonly string[];
}

/** `permissions/grant`: a remembered approval was recorded or revoked. */
export interface GrantEventData {
  readonly action: 'added' | 'revoked';
  readonly grant: Grant;
}

declare module '@deepseek-ai/dsh-core' {
  interface EventDataMap {
    'permissions/decision': DecisionEventData;
    'permissions/grant': GrantEventData;
    'permissions/problem': PermissionProblem;
  }
}

const modes = z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk']);

/** The event types the plugin defines, with their schemas. */
export const permissionsEventSchemas = {
  'permissions/decision': z.object({
    tool: z.string(),
    decision: z.enum(['allow', 'deny', 'ask']),
    mode: modes,
    reason: z.string(),
    by: z.array(z.looseObject({ kind: z.enum(['rule', 'grant', 'mode', 'tap']) })),
    uncovered: z.array(z.string()).optional(),
  }),
  'permissions/grant': z.object({
    action: z.enum(['added', 'revoked']),
    grant: z.looseObject({ id: z.string(), scope: z.enum(['session', 'project']), rules: z.array(z.string()) }),
  }),
  'permissions/problem': z.object({
    code: z.string(),
    message: z.string(),
    file: z.string().optional(),
    line: z.number().int().optional(),
    rule: z.string().optional(),
    difference: z.object({ claudeCode: z.string(), dsh: z.enum(['skipped', 'applied']) }).optional(),
  }),
} as const;
