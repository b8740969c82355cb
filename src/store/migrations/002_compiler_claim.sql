-- Which compiler instance holds a CompilingSql/CompilingRust claim. An instance beats in
-- component_heartbeat ('compiler', instance); claims of an instance that stopped beating are put
-- back to Pending by any live compiler, so a crash mid-compilation leaves nothing stuck.
ALTER TABLE pipeline ADD COLUMN compiler_instance text;
