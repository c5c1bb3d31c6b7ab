import { anchorPath, DshError, type SessionAnchors } from '@deepseek-ai/dsh-core';
import type { Access } from '../workspace.js';
import type { FsRuntime } from './runtime.js';

type Args = Readonly<Record<string, unknown>>;

/**
 * A tool's `resolvePaths`: its path argument made real exactly as the body
 * will open it (against the plugin's working directory, `~` from the
 * session's home, every symlink followed), so every policy judges the file
 * the body touches. A path the workspace refuses (outside the roots, a link
 * that leads out, a read-only root for a change) is passed on as given:
 * policies, hooks and replays still see the call, and the body refuses it
 * with its own code (and refuses with `FS_PATH_CHANGED` should it resolve
 * by then). An optional directory argument left out is filled in with the
 * directory the tool would search. Arguments a tap rewrote arrive
 * unvalidated: a key that is missing where required, empty or not a string
 * is left for the schema to refuse.
 */
export function pathResolver(rt: FsRuntime, key: 'file_path' | 'path', access: Access, optional = false) {
  return (args: Args, anchors: SessionAnchors): Args => {
    const given = args[key];
    let spelled: string;
    if (typeof given === 'string' && given !== '') spelled = given;
    else if (given === undefined && optional) spelled = '.';
    else return args;
    const input = spelled === '~' || spelled.startsWith('~/') ? anchorPath(spelled, anchors) : spelled;
    let real: string;
    try {
      real = rt.workspace.resolve(input, access).real;
    } catch (error) {
      if (DshError.isInstance(error)) return args;
      throw error;
    }
    return real === given ? args : { ...args, [key]: real };
  };
}
