-- The script's first lines (not the function library's: a library's load may only register).
-- Before Redis 5 a script that reads TIME must switch to effects replication; later versions
-- replicate effects always and keep this call as a harmless no-op.
if redis.replicate_commands then
  redis.replicate_commands()
end
