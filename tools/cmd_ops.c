/* rowreduce ops: placeholder until its issue lands. */
#include "commands.h"

int rr_cmd_ops(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rr_tool_fail(2, "'ops' is not built yet");
}
