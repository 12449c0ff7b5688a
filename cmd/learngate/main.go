// Command learngate serves the Learning Platform Public API V1 for many
// organisations at once, and administers them.
//
//	learngate serve     public and ops listeners (and the worker)
//	learngate worker    the background worker alone
//	learngate migrate   shared and tenant schema migrations
//	learngate tenant|domain|key|sso ...   ops tasks from the shell
//	learngate users import, learngate external-knowledge import   CSV imports
//	learngate webhook-receiver   a local receiver that verifies and prints deliveries
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/gin-gonic/gin"
	"github.com/spf13/cobra"

	"learngate"
)

func main() {
	gin.SetMode(gin.ReleaseMode)
	if err := rootCommand().Execute(); err != nil {
		msg := err.Error()
		var e *learngate.Error
		if errors.As(err, &e) {
			msg = e.Message
		}
		fmt.Fprintln(os.Stderr, "learngate:", msg)
		var exit *exitError
		if errors.As(err, &exit) {
			os.Exit(exit.code)
		}
		os.Exit(1)
	}
}

func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "learngate",
		Short:         "Multi-tenant Learning Platform Public API V1",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCommand(), workerCommand(), migrateCommand(),
		tenantCommand(), domainCommand(), keyCommand(), ssoCommand())
	root.AddCommand(usersCommand(), knowledgeCommand(), webhookReceiverCommand())
	return root
}
