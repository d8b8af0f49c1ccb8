package io.github.sluice.moduletests.apifixture;

import java.util.List;

/** A fixture of {@code ApiDumpIT}: every kind of member, visible or not. */
public class Visible {

    private int secret;

    /** Creates one. */
    public Visible() {
    }

    /** @return names */
    public List<String> names() {
        Runnable r = new Runnable() {
            @Override
            public void run() {
            }
        };
        r.run();
        return List.of();
    }

    /** For subclasses. */
    protected void forSubclasses() {
    }

    void packagePrivate() {
    }

    private void secretMethod() {
        secret++;
    }

    /** A public nested type. */
    public static final class Nested {
    }

    private static final class HiddenNested {
    }
}
