package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import jakarta.ws.rs.core.Feature;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The feature on a JAX-RS runtime without the servlet API (Jersey on Grizzly or the JDK's HTTP
 * server, RESTEasy on Undertow): it loads and runs, and a policy that needs the client's address
 * when nothing can give it fails the deployment, naming the policy and the remedy, instead of
 * every client sharing the key {@code unknown}. Each test loads Sluice and the JAX-RS API in a
 * class loader of their own that cannot see {@code jakarta.servlet}, and configures the feature
 * as a runtime would, through a {@code FeatureContext} that records what is registered.
 */
class NoServletApiTest {

    /** Sluice (jaxrs, filter-core) and the JAX-RS API, over the platform loader: no servlet API. */
    private static ClassLoader withoutServletApi() {
        List<URL> urls = new ArrayList<>();
        for (Class<?> c : List.of(SluiceFeature.class, Enforcer.class, Feature.class)) {
            urls.add(c.getProtectionDomain().getCodeSource().getLocation());
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    /** A feature with these policies, in {@code loader}; with a lookup of the address if {@code withLookup}. */
    private static Object feature(ClassLoader loader, String policies, boolean withLookup) throws Exception {
        Class<?> enforcerType = loader.loadClass(Enforcer.class.getName());
        Object builder = enforcerType.getMethod("builder").invoke(null);
        builder.getClass().getMethod("policies", String.class).invoke(builder, policies);
        Object enforcer = builder.getClass().getMethod("build").invoke(builder);
        Class<?> featureType = loader.loadClass(SluiceFeature.class.getName());
        if (!withLookup) {
            return featureType.getConstructor(enforcerType).newInstance(enforcer);
        }
        Object fb = featureType.getMethod("builder").invoke(null);
        fb.getClass().getMethod("enforcer", enforcerType).invoke(fb, enforcer);
        Function<Object, String> lookup = request -> "192.0.2.1";
        fb.getClass().getMethod("peerAddress", Function.class).invoke(fb, lookup);
        return fb.getClass().getMethod("build").invoke(fb);
    }

    /**
     * Configures {@code feature} as a runtime would.
     *
     * @return the class names of what it registered
     * @throws Throwable what {@code configure} threw
     */
    private static List<String> configure(ClassLoader loader, Object feature) throws Throwable {
        List<String> registered = new ArrayList<>();
        Class<?> contextType = loader.loadClass("jakarta.ws.rs.core.FeatureContext");
        Class<?> configurationType = loader.loadClass("jakarta.ws.rs.core.Configuration");
        Object configuration = Proxy.newProxyInstance(loader, new Class<?>[] {configurationType},
                (proxy, method, args) -> empty(method));
        Object[] context = new Object[1];
        context[0] = Proxy.newProxyInstance(loader, new Class<?>[] {contextType}, (proxy, method, args) -> {
            if (method.getName().equals("getConfiguration")) {
                return configuration;
            }
            if (method.getName().equals("register")) {
                registered.add(args[0] instanceof Class<?> c ? c.getName() : args[0].getClass().getName());
                return context[0];
            }
            return empty(method);
        });
        try {
            feature.getClass().getMethod("configure", contextType).invoke(feature, context[0]);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        return registered;
    }

    private static Object empty(Method method) {
        Class<?> type = method.getReturnType();
        if (type == Map.class) {
            return Map.of();
        } else if (type == Set.class) {
            return Set.of();
        } else if (Collection.class.isAssignableFrom(type)) {
            return List.of();
        } else if (type == boolean.class) {
            return false;
        } else if (type == int.class) {
            return 0;
        }
        return null;
    }

    @Test
    void theLoader_cannotSeeTheServletApi() throws Exception {
        ClassLoader loader = withoutServletApi();
        assertThrows(ClassNotFoundException.class, () -> Class.forName("jakarta.servlet.http.HttpServletRequest", false, loader));
        // and it is Sluice's own copy that runs there, not this test's
        assertTrue(loader.loadClass(SluiceFeature.class.getName()) != SluiceFeature.class);
    }

    @Test
    void withoutServletApi_aPolicyKeyedByHeader_deploys_andRegistersNoServletType() throws Throwable {
        ClassLoader loader = withoutServletApi();
        List<String> registered = configure(loader, feature(loader,
                "per-client = token-bucket 100/1m key=header:X-Api-Key match=/api/*", false));
        assertTrue(registered.stream().noneMatch(n -> n.endsWith("ServletPeer")), registered::toString);
        assertTrue(registered.stream().anyMatch(n -> n.endsWith("PreMatching")), registered::toString);
    }

    @Test
    void withoutServletApi_keyIp_failsTheDeployment_namingThePolicyAndTheRemedy() throws Throwable {
        ClassLoader loader = withoutServletApi();
        Object feature = feature(loader, "per-ip = token-bucket 100/1m key=ip match=/api/*", false);
        Throwable failure = assertThrows(Throwable.class, () -> configure(loader, feature));
        assertEquals(IllegalStateException.class.getName(), failure.getClass().getName());
        assertTrue(failure.getMessage().startsWith("policy 'per-ip' (key "), failure.getMessage());
        assertTrue(failure.getMessage().contains("needs the client's address"), failure.getMessage());
        assertTrue(failure.getMessage().contains("SluiceFeature.builder().peerAddress("), failure.getMessage());
        assertTrue(failure.getMessage().contains(SluiceFeature.PEER_ADDRESS), failure.getMessage());
    }

    @Test
    void withoutServletApi_aFallbackChainEndingInIp_orAnAllowListOfNetworks_failsTheDeployment() throws Throwable {
        ClassLoader loader = withoutServletApi();
        Object chain = feature(loader, """
                per-client = token-bucket 100/1m key=header:X-Api-Key match=/api/*
                per-key    = fixed-window 5/10s key=header:X-Api-Key|ip match=none
                """, false);
        Throwable failure = assertThrows(Throwable.class, () -> configure(loader, chain));
        assertTrue(failure.getMessage().startsWith("policy 'per-key' (key "), failure.getMessage());

        Object allow = feature(loader, "partners = token-bucket 100/1m key=header:X-Api-Key allow=10.0.0.0/8", false);
        failure = assertThrows(Throwable.class, () -> configure(loader, allow));
        assertTrue(failure.getMessage().startsWith("policy 'partners' (an allow-list of networks)"), failure.getMessage());
    }

    @Test
    void withoutServletApi_keyIpWithALookup_deploys() throws Throwable {
        ClassLoader loader = withoutServletApi();
        List<String> registered = configure(loader, feature(loader, "per-ip = token-bucket 100/1m key=ip match=/api/*", true));
        assertTrue(registered.stream().anyMatch(n -> n.endsWith("PreMatching")), registered::toString);
        assertTrue(registered.stream().noneMatch(n -> n.endsWith("ServletPeer")), registered::toString);
    }

    @Test
    void withTheServletApi_theFeatureRegistersTheServletRequestsAddressSource() throws Throwable {
        // Here, on this test's class path (Jetty, Tomcat: the servlet API is there)
        ClassLoader here = SluiceFeature.class.getClassLoader();
        List<String> registered = configure(here, new SluiceFeature(Enforcer.builder()
                .policies("per-ip = token-bucket 100/1m key=ip match=/api/*").build()));
        assertTrue(registered.stream().anyMatch(n -> n.endsWith("ServletPeer")), registered::toString);
    }
}
