package io.github.sluice.testing;

import java.lang.reflect.Proxy;
import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records what java.util.logging's logger {@code io.github.sluice} (the default backend of the
 * core's {@code System.Logger}) is asked to log, as {@code "LEVEL formatted message"} lines, and
 * prints nothing meanwhile. Reached by reflection: the test module does not compile against
 * java.logging. Closing removes the recording and puts back the level {@link #level} changed.
 */
public final class JulRecording implements AutoCloseable {

    /** The lines logged so far, in order. */
    public final List<String> lines = new CopyOnWriteArrayList<>();
    private final Object logger;
    private final Class<?> loggerClass;
    private final Class<?> levelClass;
    private final Class<?> filterClass;
    private final Object levelBefore;

    private JulRecording() throws ReflectiveOperationException {
        loggerClass = Class.forName("java.util.logging.Logger");
        levelClass = Class.forName("java.util.logging.Level");
        filterClass = Class.forName("java.util.logging.Filter");
        logger = loggerClass.getMethod("getLogger", String.class).invoke(null, "io.github.sluice");
        levelBefore = loggerClass.getMethod("getLevel").invoke(logger);
        Object filter = Proxy.newProxyInstance(JulRecording.class.getClassLoader(), new Class<?>[] {filterClass},
                (proxy, method, args) -> {
                    if (!method.getName().equals("isLoggable")) {
                        return method.getName().equals("hashCode") ? 0 : method.getName().equals("equals") ? proxy == args[0]
                                : "recording filter";
                    }
                    Object r = args[0];
                    String message = (String) r.getClass().getMethod("getMessage").invoke(r);
                    Object[] params = (Object[]) r.getClass().getMethod("getParameters").invoke(r);
                    lines.add(r.getClass().getMethod("getLevel").invoke(r) + " "
                            + (params == null ? message : MessageFormat.format(message, params)));
                    return false; // recorded, not printed
                });
        loggerClass.getMethod("setFilter", filterClass).invoke(logger, filter);
    }

    /**
     * Starts recording.
     *
     * @return the recording; close it
     * @throws ReflectiveOperationException if this runtime has no java.logging
     */
    public static JulRecording start() throws ReflectiveOperationException {
        return new JulRecording();
    }

    /**
     * Sets the logger's level, as an application would at run time.
     *
     * @param name a java.util.logging level's name, e.g. {@code FINER}
     * @throws ReflectiveOperationException if there is no such level
     */
    public void level(String name) throws ReflectiveOperationException {
        loggerClass.getMethod("setLevel", levelClass).invoke(logger, levelClass.getField(name).get(null));
    }

    @Override
    public void close() throws ReflectiveOperationException {
        loggerClass.getMethod("setFilter", filterClass).invoke(logger, (Object) null);
        loggerClass.getMethod("setLevel", levelClass).invoke(logger, levelBefore);
    }
}
