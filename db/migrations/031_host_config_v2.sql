-- Issue 14: a host's config is the real product's host config v2, stored as given. Configs saved before kept the
-- client's identity at the top level (clientInfo, protocolVersions) and the request timeout as requestTimeoutMs;
-- v2 keeps them in mcpProfile.initialize (clientInfo, supportedProtocolVersions) and connectionDefaults.requestTimeout.
-- Move them there, so that every stored config reads as v2. Every other key stays as it is; header values are
-- untouched (sealed apart in headers_enc). Rows already in the v2 shape are not selected.
UPDATE hosts
SET config = CASE
       WHEN (config ? 'clientInfo' OR config ? 'protocolVersions') AND NOT config ? 'mcpProfile' THEN
         (config - 'clientInfo' - 'protocolVersions')
         || jsonb_build_object('mcpProfile', jsonb_build_object(
              'profileVersion', 1,
              'initialize', jsonb_strip_nulls(jsonb_build_object(
                'clientInfo', config -> 'clientInfo',
                'supportedProtocolVersions', config -> 'protocolVersions'))))
       ELSE config
     END
  || CASE
       WHEN jsonb_typeof(config -> 'connectionDefaults') = 'object' AND config -> 'connectionDefaults' ? 'requestTimeoutMs'
            AND NOT config -> 'connectionDefaults' ? 'requestTimeout' THEN
         jsonb_build_object('connectionDefaults',
           ((config -> 'connectionDefaults') - 'requestTimeoutMs')
           || jsonb_build_object('requestTimeout', config #> '{connectionDefaults,requestTimeoutMs}'))
       ELSE '{}'::jsonb
     END
WHERE ((config ? 'clientInfo' OR config ? 'protocolVersions') AND NOT config ? 'mcpProfile')
   OR (jsonb_typeof(config -> 'connectionDefaults') = 'object' AND config -> 'connectionDefaults' ? 'requestTimeoutMs'
       AND NOT config -> 'connectionDefaults' ? 'requestTimeout');
