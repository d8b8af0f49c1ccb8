package io.github.sluice.demo;

import io.github.sluice.servlet.SluiceFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The demo's servlet filter: the {@link SluiceFilter} of {@code web.xml}, whose policies come from
 * a properties file when one is named, so that they can be edited while the demo runs.
 *
 * <p>Without a file, the filter is configured by its init-params as written in {@code web.xml}.
 * With {@value #ENV}{@code =/path/to/sluice.properties} (or the system property {@value #PROPERTY},
 * or the context init-param {@value #PROPERTY}, which take precedence in that order), the file
 * replaces the {@code policies} init-param: it is the filter's {@code config} file, in the format
 * of any Sluice properties file ({@code policy.per-ip = fixed-window 5/10s align=first-request
 * key=ip}), and the filter watches it, so an edit shows in {@code RateLimit-Policy} within about a
 * second, without a restart. The other init-params (the trusted proxies) stay.
 */
public final class DemoFilter implements Filter {

    /** The environment variable naming the policies file. */
    public static final String ENV = "SLUICE_CONFIG";
    /** The system property, or context init-param, naming the policies file. */
    public static final String PROPERTY = "sluice.config";

    private final SluiceFilter delegate = new SluiceFilter();

    @Override
    public void init(FilterConfig config) throws ServletException {
        String file = file(config.getServletContext());
        if (file == null) {
            delegate.init(config);
            return;
        }
        config.getServletContext().log("Sluice demo: the policies of filter '" + config.getFilterName()
                + "' come from " + file + ", watched for edits");
        delegate.init(new FromFile(config, file));
    }

    /** The policies file named for this deployment, or {@code null}. */
    static String file(ServletContext context) {
        for (String value : new String[] {context.getInitParameter(PROPERTY), System.getProperty(PROPERTY),
            System.getenv(ENV)}) {
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        return null;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        delegate.doFilter(request, response, chain);
    }

    @Override
    public void destroy() {
        delegate.destroy();
    }

    /** The filter's init-params with {@code config} set to the file and no {@code policies}. */
    private record FromFile(FilterConfig config, String file) implements FilterConfig {
        @Override
        public String getFilterName() {
            return config.getFilterName();
        }

        @Override
        public ServletContext getServletContext() {
            return config.getServletContext();
        }

        @Override
        public String getInitParameter(String name) {
            return switch (name) {
                case "config" -> file;
                case "policies" -> null;
                default -> config.getInitParameter(name);
            };
        }

        @Override
        public Enumeration<String> getInitParameterNames() {
            List<String> names = new ArrayList<>(Collections.list(config.getInitParameterNames()));
            names.remove("policies");
            names.remove("config");
            names.add("config");
            return Collections.enumeration(names);
        }
    }
}
