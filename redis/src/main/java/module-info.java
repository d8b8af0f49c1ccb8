/**
 * Sluice's distributed store: the same policies shared by every instance through Redis, one
 * round trip per decision. {@link io.github.sluice.redis.RedisStore} is the entry point; the
 * Lettuce client is an implementation detail that no exported signature exposes.
 */
// Lettuce ships no module descriptor, only an Automatic-Module-Name; that is the best it offers.
@SuppressWarnings("requires-automatic")
module io.github.sluice.redis {
    requires transitive io.github.sluice.core;
    requires lettuce.core;
    requires io.netty.buffer;

    exports io.github.sluice.redis;
}
