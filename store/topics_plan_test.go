package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"testing"
	"time"

	"learngate"
)

// TestTopicAndPathwayListsFixedQueries proves the lists are set-based: a
// page of 100 topics or pathways, each with skills, categories and topics,
// costs as many statements as a page of one.
func TestTopicAndPathwayListsFixedQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tdb, queries := benchTenant(t)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, kind := range []learngate.CatalogKind{learngate.Skills, learngate.Categories} {
		for _, name := range []string{"One", "Two"} {
			if _, err := CreateCatalogItem(ctx, tdb, kind, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 100; i++ {
		topic, err := CreateTopic(ctx, tdb, learngate.TopicInput{Title: strp(fmt.Sprint("T", i)), Skills: []string{"One", "Two"},
			Categories: []learngate.TopicCategoryInput{{Name: "One", Minutes: 1}, {Name: "Two", Points: 1.5}}}, now)
		if err != nil {
			t.Fatal(err)
		}
		topics := []learngate.PathwayTopicInput{{TopicID: 1}}
		if topic.ID != 1 {
			topics = append(topics, learngate.PathwayTopicInput{TopicID: topic.ID})
		}
		_, err = CreatePathway(ctx, tdb, learngate.PathwayInput{Title: strp(fmt.Sprint("P", i)), Skills: []string{"Two"}, Topics: topics}, now)
		if err != nil {
			t.Fatal(err)
		}
	}
	count := func(read func(list.Page) (int, error), size int) int64 {
		t.Helper()
		start := queries()
		n, err := read(list.Page{Number: 1, Size: size})
		if err != nil || n != size {
			t.Fatalf("list of %d: %d records, %v", size, n, err)
		}
		return queries() - start
	}
	topics := func(p list.Page) (int, error) {
		ts, _, err := ListTopics(ctx, tdb, list.UpdatedFilter{}, p)
		return len(ts), err
	}
	pathways := func(p list.Page) (int, error) {
		ps, _, err := ListPathways(ctx, tdb, list.UpdatedFilter{}, p)
		return len(ps), err
	}
	if one, hundred := count(topics, 1), count(topics, 100); one != hundred {
		t.Fatalf("ListTopics: %d statements for 1 topic, %d for 100", one, hundred)
	}
	if one, hundred := count(pathways, 1), count(pathways, 100); one != hundred {
		t.Fatalf("ListPathways: %d statements for 1 pathway, %d for 100", one, hundred)
	}
}
