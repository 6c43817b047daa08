package io.dlock.internal.client;

import io.dlock.ConnectionFailedException;
import io.dlock.ConnectionFailedException.Reason;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.net.ConnectException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cause of a failed connect, from exception chains shaped as Lettuce, Netty and the JDK throw them (the same
 * causes are reproduced against real servers by dlock-it's ConnectFailureIT and TlsTopologiesIT).
 */
class ConnectFailuresTest {

    private static RedisConnectionException connect(Throwable cause) {
        return new RedisConnectionException("Unable to connect to 127.0.0.1/<unresolved>:6379", cause);
    }

    private static SSLHandshakeException handshake(Throwable cause) {
        SSLHandshakeException e = new SSLHandshakeException(cause.getMessage());
        e.initCause(cause);
        return e;
    }

    @Test
    void redisErrorRepliesWinOverTheConnectionExceptionAroundThem() {
        assertThat(ConnectFailures.classify(connect(new RedisCommandExecutionException(
                "WRONGPASS invalid username-password pair or user is disabled.")), false))
                .isEqualTo(Reason.AUTHENTICATION_REFUSED);
        assertThat(ConnectFailures.classify(connect(new RedisCommandExecutionException(
                "NOAUTH HELLO must be called with the client already authenticated")), false))
                .isEqualTo(Reason.AUTHENTICATION_REFUSED);
        assertThat(ConnectFailures.classify(new RedisCommandExecutionException(
                "NOPERM this user has no permissions to access one of the channels"), false))
                .isEqualTo(Reason.PERMISSION_DENIED);
    }

    @Test
    void failuresThatMayHideTheirCauseAreToldApartForAnotherAttempt() {
        IllegalStateException lost = new IllegalStateException("RedisHandshakeHandler not registered");
        assertThat(ConnectFailures.mayHideItsCause(connect(lost), false)).isTrue();
        assertThat(ConnectFailures.mayHideItsCause(connect(lost), true)).isTrue();
        RedisConnectionException cluster = new RedisConnectionException("Unable to connect to Redis Cluster");
        cluster.addSuppressed(connect(lost));
        assertThat(ConnectFailures.mayHideItsCause(cluster, false)).isTrue();
        RedisException closed = new RedisException("Connection closed prematurely");
        assertThat(ConnectFailures.mayHideItsCause(connect(closed), false)).isTrue();
        assertThat(ConnectFailures.mayHideItsCause(connect(new RedisCommandExecutionException(
                "WRONGPASS invalid username-password pair or user is disabled.")), false)).isFalse();
        assertThat(ConnectFailures.mayHideItsCause(connect(new ConnectException("Connection refused")),
                false)).isFalse();
    }

    @Test
    void tlsFailures() {
        assertThat(ConnectFailures.classify(connect(handshake(new CertificateException(
                "No subject alternative names matching IP address 127.0.0.1 found"))), true))
                .isEqualTo(Reason.HOST_NAME_NOT_IN_CERTIFICATE);
        CertificateException pkix = new CertificateException("PKIX path building failed",
                new CertPathBuilderException("unable to find valid certification path to requested target"));
        assertThat(ConnectFailures.classify(connect(handshake(pkix)), true))
                .isEqualTo(Reason.CERTIFICATE_NOT_TRUSTED);
        assertThat(ConnectFailures.classify(connect(new SSLHandshakeException(
                "Received fatal alert: certificate_required")), true)).isEqualTo(Reason.TLS_HANDSHAKE_FAILED);
    }

    @Test
    void aConnectionClosedWithoutReplyIsATlsPortOnlyWithoutTls() {
        RedisConnectionException closed = connect(new RedisException("Connection closed prematurely"));
        assertThat(ConnectFailures.classify(closed, false)).isEqualTo(Reason.SERVER_EXPECTS_TLS);
        assertThat(ConnectFailures.classify(closed, true)).isEqualTo(Reason.OTHER);
    }

    @Test
    void nothingListeningIsUnreachable() {
        assertThat(ConnectFailures.classify(connect(new ConnectException("Connection refused")), false))
                .isEqualTo(Reason.UNREACHABLE);
    }

    @Test
    void aClusterSeedsFailuresAreSuppressedExceptions() {
        RedisException partitions = new RedisException("Cannot retrieve cluster partitions from [rediss://…]");
        partitions.addSuppressed(connect(handshake(new CertificateException(
                "No subject alternative names matching IP address 127.0.0.1 found"))));
        assertThat(ConnectFailures.classify(connect(partitions), true))
                .isEqualTo(Reason.HOST_NAME_NOT_IN_CERTIFICATE);
    }

    @Test
    void theMessageStartsWithTheReasonAndHoldsNoCredentials() {
        ConnectionFailedException e = ConnectFailures.failure("redis://***@h:1", connect(
                new RedisCommandExecutionException("WRONGPASS for pw-123")), false, null,
                text -> text.replace("pw-123", "***"));
        assertThat(e.getMessage()).startsWith("authentication refused: cannot connect to Redis at redis://***@h:1: ")
                .doesNotContain("pw-123");
        assertThat(e.reason()).isEqualTo(Reason.AUTHENTICATION_REFUSED);
        assertThat(e.isTransient()).isFalse();
    }
}
