-- Issue 19 §3: what Runway's MCP client declares to a server (elicitation, sampling, roots) and how it answers
-- the requests a server sends it. Forward-only, like the others.

-- A saved server's client profile (admin CLI `server client-profile`): which client features are declared to it,
-- its roots and its elicitation policy. NULL: nothing declared, as before.
ALTER TABLE servers ADD COLUMN client_profile jsonb;

-- A test case's scripted answer to elicitation requests (accept with content, decline, cancel, or the form's
-- defaults). NULL: the profile's policy answers.
ALTER TABLE eval_cases ADD COLUMN elicitation jsonb;

-- The host whose client profile a suite's runs present to its servers. A deleted host no longer applies.
ALTER TABLE eval_suites ADD COLUMN host_id text REFERENCES hosts(id) ON DELETE SET NULL;

-- The host a run was started with (kept as a record even if the host is deleted later), and the client profile
-- taken from it then: a host edited during the run does not change what the run declares.
ALTER TABLE eval_runs ADD COLUMN host_id text;
ALTER TABLE eval_runs ADD COLUMN client_profile jsonb;
