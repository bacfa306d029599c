/* The capped growing buffer. */
#include "core/buf.h"
#include "core/err.h"
#include "harness.h"

static void test_append_and_grow(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	for (int i = 0; i < 1000; i++)
		CHECK_INT_EQ(gw_buf_printf(&b, "%d,", i % 10), 0);
	CHECK_INT_EQ(b.len, 2000);
	CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
	CHECK_INT_EQ(b.data[b.len], '\0');
	gw_buf_release(&b);
	CHECK(b.data == NULL);
}

static void test_limit(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 10);
	CHECK_INT_EQ(gw_buf_puts(&b, "0123456789"), 0);
	CHECK_INT_EQ(gw_buf_putc(&b, 'x'), GW_EOVERFLOW);
	CHECK_INT_EQ(b.len, 10); /* nothing half-written */
	CHECK_STR_EQ(b.data, "0123456789");
	gw_buf_reset(&b);
	CHECK_INT_EQ(b.len, 0);
	CHECK_INT_EQ(gw_buf_printf(&b, "%s", "a long string over the limit"), GW_EOVERFLOW);
	gw_buf_release(&b);
}

static void test_long_printf(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	char big[1000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT_EQ(gw_buf_printf(&b, "<%s>", big), 0);
	CHECK_INT_EQ(b.len, 1001);
	CHECK_INT_EQ(b.data[0], '<');
	CHECK_INT_EQ(b.data[1000], '>');
	gw_buf_release(&b);
}

int main(void)
{
	RUN(test_append_and_grow);
	RUN(test_limit);
	RUN(test_long_printf);
	return harness_done();
}
