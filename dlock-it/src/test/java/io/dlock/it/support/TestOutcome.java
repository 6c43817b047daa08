package io.dlock.it.support;

import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Remembers whether the test method itself failed, so that an {@code @AfterEach} leak check can stay quiet after a
 * failure (a test that failed half-way leaves holds behind; reporting them as leaks would only add noise).
 *
 * <p>Register per instance: {@code @RegisterExtension final TestOutcome outcome = new TestOutcome();}. Runs after the
 * test method and before {@code @AfterEach} methods.
 */
public final class TestOutcome implements AfterTestExecutionCallback {
    private volatile boolean failed;

    @Override
    public void afterTestExecution(ExtensionContext context) {
        failed = context.getExecutionException().isPresent();
    }

    /** @return whether the test method threw */
    public boolean failed() {
        return failed;
    }
}
