-- Issue 16 (parts 1 and 2): a case's expectedOutput is checked (output_check: { mode, caseSensitive?, rubric? },
-- null = the default `contains` check when expected_output is set), a case may be a conversation (turns: [{ prompt,
-- expectedToolCalls, expectedOutput?, outputCheck? }], null = one turn from query / expected_tool_calls /
-- expected_output), and a suite may name the model that grades `judge` checks (judge_model: { model, provider? },
-- null = each case's own model). A running run reads them from the case and the suite, as it reads match_options.
ALTER TABLE eval_cases
  ADD COLUMN output_check jsonb,
  ADD COLUMN turns jsonb;
ALTER TABLE eval_suites
  ADD COLUMN judge_model jsonb;
