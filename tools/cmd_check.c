/* rowreduce check: placeholder until its issue lands. */
#include "commands.h"

int rr_cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rr_tool_fail(2, "'check' is not built yet");
}
