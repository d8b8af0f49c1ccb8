package io.github.sluice.demo;

import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * The JAX-RS application under {@code /api/*} (mapped in {@code web.xml}, served by Jersey's
 * servlet bundled in the WAR).
 */
public class DemoApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(HelloResource.class, SlowResource.class);
    }
}
