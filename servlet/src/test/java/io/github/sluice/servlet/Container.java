package io.github.sluice.servlet;

import java.nio.file.Path;

/** The containers every contract runs against. */
enum Container {
    JETTY {
        @Override
        RunningServer start(Deployment deployment) throws Exception {
            return JettyServers.start(deployment);
        }

        @Override
        RunningServer startWebapp(Path webapp) throws Exception {
            return JettyServers.startWebapp(webapp);
        }
    },
    TOMCAT {
        @Override
        RunningServer start(Deployment deployment) throws Exception {
            return TomcatServers.start(deployment);
        }

        @Override
        RunningServer startWebapp(Path webapp) throws Exception {
            return TomcatServers.startWebapp(webapp);
        }
    };

    /** The test webapp deployed by the web.xml contract. */
    static final Path TEST_WEBAPP = Path.of("src", "test", "webapp").toAbsolutePath();

    /** Deploys programmatically and starts. */
    abstract RunningServer start(Deployment deployment) throws Exception;

    /** Deploys a webapp directory (its {@code WEB-INF/web.xml}) at the root context and starts. */
    abstract RunningServer startWebapp(Path webapp) throws Exception;
}
