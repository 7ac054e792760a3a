// Who is signed in: GET /v1/me once at start and after sign-in; cleared on sign-out or on any 401.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import type { Me } from './types';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'signed-in'; me: Me }
  | { status: 'error'; message: string };

interface SessionApi {
  state: SessionState;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
  /** Marks the session gone (after a 401) without a request. */
  lost(): void;
}

const Ctx = createContext<SessionApi | null>(null);

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const refresh = useCallback(async () => {
    try {
      const me = await api.call<Me>('GET', '/me', { quiet401: true });
      setState({ status: 'signed-in', me });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setState({ status: 'signed-out' });
      else setState({ status: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  }, []);
  const signOut = useCallback(async () => {
    try {
      await api.call('DELETE', '/sessions/current', { quiet401: true });
    } catch {
      // already gone: signed out either way
    }
    setState({ status: 'signed-out' });
  }, []);
  const lost = useCallback(() => setState({ status: 'signed-out' }), []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return <Ctx.Provider value={{ state, refresh, signOut, lost }}>{children}</Ctx.Provider>;
}

export function useSession(): SessionApi {
  const s = useContext(Ctx);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

export function useMe(): Me {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useMe while not signed in');
  return state.me;
}
