/**
 * Sluice's framework-neutral core: limiter algorithms, the in-memory sharded registry and the
 * store SPI. Depends on nothing outside the JDK.
 */
module io.github.sluice.core {
    exports io.github.sluice.core;
    exports io.github.sluice.algorithm;
    exports io.github.sluice.store;
}
