package io.github.sluice.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.Locale;

/**
 * The filter of the recipe "Brute-force login protection" in docs/recipes.md, word for word (the
 * recipe's test checks it, but for {@code public}, which this test class does without): the user
 * name of a login form, as a request attribute.
 */
// recipe (begin)
final class LoginUserAttribute implements Filter {
    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String user = request.getParameter("username"); // the form field, or the query parameter
        if (user != null && !user.isBlank()) {
            // One account, one key: "Alice", " alice" and "ALICE" must not be three quotas.
            request.setAttribute("login.user", user.strip().toLowerCase(Locale.ROOT));
        }
        chain.doFilter(request, response);
    }
}
// recipe (end)
