package io.github.sluice.testing;

import java.util.List;
import java.util.stream.Collectors;

/**
 * filter-core's packages in layer order, bottom to top, relative to {@code io.github.sluice}: each
 * may use only those before it. Shared by the layering tests of every module; the reasons are in
 * docs/architecture.md.
 */
public final class Layers {

    /** The prefix of every Sluice package. */
    public static final String PREFIX = "io.github.sluice";

    /** Bottom to top. */
    public static final List<String> BOTTOM_TO_TOP = List.of(
            "internal", "core", "algorithm", "adaptive", "limiter", "store", "request", "key", "policy", "http", "config");

    /** The one package filter-core does not export: helpers no other module may use. */
    public static final String INTERNAL = "internal";

    /** What filter-core exports: every layer but {@link #INTERNAL}, relative to the prefix. */
    public static final List<String> EXPORTED = BOTTOM_TO_TOP.stream()
            .filter(l -> !l.equals(INTERNAL)).collect(Collectors.toUnmodifiableList());

    private Layers() {
    }

    /**
     * @param layer a layer, relative to the prefix
     * @return its package name
     */
    public static String qualified(String layer) {
        return PREFIX + '.' + layer;
    }
}
