-- The working directory of a stdio server's process. NULL: a private directory of its own under the service's
-- DATA_DIR (servers/<id>), never the service's own working directory. Always absolute: a relative one would
-- resolve against wherever the service happens to run.
ALTER TABLE servers ADD COLUMN cwd text;
ALTER TABLE servers ADD CONSTRAINT servers_cwd_stdio_absolute CHECK (cwd IS NULL OR (transport_type = 'stdio' AND left(cwd, 1) = '/'));
