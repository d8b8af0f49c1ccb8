package io.github.sluice.demo;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

/**
 * The contract in embedded Jetty 12 (ee10), started exactly as the README's run command starts
 * it (see {@link EmbeddedJetty}).
 */
class JettyIT extends DemoContract {

    private EmbeddedJetty jetty;

    @Override
    URI deploy(Path war) throws Exception {
        jetty = EmbeddedJetty.start(war, Map.of());
        return jetty.uri();
    }

    @Override
    void undeploy() throws Exception {
        if (jetty != null) {
            jetty.close();
        }
    }
}
