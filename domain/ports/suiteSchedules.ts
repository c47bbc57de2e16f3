/** The suite a schedule runs, and how it should run: what PATCH /eval-suites/{s}/schedule asks for. */
export interface SuiteScheduleTarget {
  suiteId: string;
  suiteName: string;
  projectId: string;
  organizationId: string;
  enabled: boolean;
  /** null only while disabled and never given */
  intervalMinutes: number | null;
}

/**
 * Suites' schedules, kept where they fire (Temporal Schedules: api/suiteScheduler.ts implements this). The database
 * keeps the wanted state; this makes the firing side match it.
 */
export interface SuiteSchedules {
  /**
   * Makes the suite's schedule what the target says: enabled creates it or updates its interval and unpauses it;
   * disabled pauses it, keeping it (a suite never given an interval gets none).
   */
  apply(target: SuiteScheduleTarget): Promise<void>;
  /** Deletes the suite's schedule, if it has one. */
  remove(suiteId: string): Promise<void>;
}
