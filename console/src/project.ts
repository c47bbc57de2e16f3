import { createStore } from './store';

const PROJECT_ITEM = 'runway.projectId';

function readProject(): string | null {
  try {
    return sessionStorage.getItem(PROJECT_ITEM);
  } catch {
    return null;
  }
}

/** The project last chosen in this tab (the header's picker, the suites view): where "Suites" and "Servers" go. */
export const chosenProject = createStore<string | null>(readProject());

export function chooseProject(projectId: string): void {
  try {
    sessionStorage.setItem(PROJECT_ITEM, projectId);
  } catch {
    // storage refused (private mode): the choice lasts as long as the page
  }
  chosenProject.set(projectId);
}
