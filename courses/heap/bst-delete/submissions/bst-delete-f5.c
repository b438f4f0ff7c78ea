#include <stdio.h>
#include <stdlib.h>

typedef struct bst {
    int key;
    struct bst *left, *right;
} bst;

bst *insert(bst *root, int key)
{
    bst **link = &root;
    while (*link != NULL) {
        if (key == (*link)->key)
            return root;
        link = key < (*link)->key ? &(*link)->left : &(*link)->right;
    }
    *link = malloc(sizeof(bst));
    (*link)->key = key;
    (*link)->left = (*link)->right = NULL;
    return root;
}

bst *delete_key(bst *t, int key)
{
    bst *tmp;
    if (t == NULL)
        return NULL;
    if (key < t->key) {
        t->left = delete_key(t->left, key);
    } else if (key > t->key) {
        t->right = delete_key(t->right, key);
    } else if (t->left == NULL || t->right == NULL) {
        tmp = t->left != NULL ? t->left : t->right;
        free(t);
        return tmp;
    } else {
        tmp = t->right;
        while (tmp->left != NULL)
            tmp = tmp->left;
        t->right = delete_key(t->right, tmp->key);
    }
    return t;
}

void print_free(bst *t)
{
    if (t == NULL)
        return;
    print_free(t->left);
    printf(" %d", t->key);
    print_free(t->right);
    free(t);
}

int main(void)
{
    bst *root = NULL;
    int n, x;

    scanf("%d", &n);
    while (n-- > 0 && scanf("%d", &x) == 1)
        root = insert(root, x);
    if (scanf("%d", &x) == 1)
        root = delete_key(root, x);
    printf("inorder:");
    print_free(root);
    printf("\n");
    return 0;
}
