package io.github.sluice.moduletests.apifixture;

/** A fixture of {@code ApiDumpIT}: a package-private type with a public nested one, neither API. */
final class Hidden {

    /** Not API: its enclosing type is not. */
    public static final class Inner {
        /** @return nothing of note */
        public int value() {
            return 0;
        }
    }
}
