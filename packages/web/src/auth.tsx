import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { isStatus, setCurrentProject, vss } from './api';
import type { Me, Project } from './types';

/** Who is signed in, their organisation's projects and the project the dashboard acts on. */
export interface AuthState {
  /** undefined while loading, null when signed out */
  me: Me | null | undefined;
  projects: Project[];
  project: Project | null;
  selectProject(id: string): void;
  /** reads who is signed in and the projects again (after login, register, an invitation, a new project) */
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);
const PROJECT_KEY = 'vss.project';

/** Provides `useAuth()` to the app. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [projects, setProjects] = useState<Project[]>([]);
  const [projectId, setProjectId] = useState<string | null>(() => localStorage.getItem(PROJECT_KEY));

  const refresh = useCallback(async () => {
    try {
      // Answers null (not 401) to a visitor without a sign-in, so public pages log no failure.
      const user = await vss.get('/v1/auth/session');
      const page = user ? await vss.page('/v1/projects', { params: { query: { limit: 200 } } }) : null;
      setMe(user);
      setProjects(page?.items ?? []);
    } catch (err) {
      if (isStatus(err, 401)) {
        setMe(null);
        setProjects([]);
      } else throw err;
    }
  }, []);

  useEffect(() => {
    refresh().catch(() => setMe(null));
  }, [refresh]);

  const project = projects.find((p) => p.id === projectId) ?? projects[0] ?? null;
  // Set before children render, so that their first request already carries the project.
  setCurrentProject(project?.id ?? null);

  const selectProject = useCallback((id: string) => {
    localStorage.setItem(PROJECT_KEY, id);
    setProjectId(id);
  }, []);

  const signOut = useCallback(async () => {
    await vss.post('/v1/auth/logout');
    setMe(null);
    setProjects([]);
  }, []);

  const value = useMemo(
    () => ({ me, projects, project, selectProject, refresh, signOut }),
    [me, projects, project, selectProject, refresh, signOut],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The signed-in state; inside `AuthProvider` only. */
export function useAuth(): AuthState {
  const v = useContext(AuthContext);
  if (!v) throw new Error('useAuth outside AuthProvider');
  return v;
}
